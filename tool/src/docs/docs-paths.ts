import { isAbsolute, posix, relative, resolve, sep } from 'node:path';
import { RestbusError } from '@restbus/infra';

/** `/monitoring/isAlive` → `services/monitoring/isAlive`, the service's folder inside docs/. */
export function toServiceDocsDir(servicePath: string, file: string): string {
  const segments = servicePath.split('/').filter(Boolean);
  if (
    segments.length === 0 ||
    segments.some((segment) => segment === '.' || segment === '..' || segment.includes('\\'))
  ) {
    throw new RestbusError(
      'PROJECT_INVALID',
      `config.yml: services: "${servicePath}" (${file}) must be a plain folder path`,
    );
  }
  return posix.join('services', ...segments);
}

/**
 * Where a file the service refers to (a mock body, a schema) goes inside docs/: the same place under `services/` as
 * under the project's services root. Undefined for a file outside the services root: copying it could clash with
 * another generated file, so it is named but not linked.
 */
export function toDocsCopyPath(servicesDir: string, serviceDir: string, reference: string): string | undefined {
  const inServices = relative(servicesDir, resolve(serviceDir, reference));
  if (!inServices || inServices.startsWith('..') || isAbsolute(inServices)) return undefined;
  return posix.join('services', ...inServices.split(sep));
}

/** A relative, URL-encoded link from one docs/ file to another: works from file:// and under /docs/ alike. */
export function toHref(fromFile: string, toFile: string): string {
  const path = posix.relative(posix.dirname(fromFile), toFile);
  return path
    .split('/')
    .map((segment) => (segment === '..' ? segment : encodeURIComponent(segment)))
    .join('/');
}

/** `../` once per folder between a docs/ file and docs/ itself. */
export const toRoot = (file: string): string => '../'.repeat(file.split('/').length - 1);
