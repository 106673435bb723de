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

/**
 * Files linked under their own names: types browsers show as data, text or an image and never run. An HTML, SVG or
 * XML file (or XSLT, or a type a server may not know and a browser may sniff) opened from a link runs its scripts in
 * the docs' origin, which is the API's when the mock server serves them: such a copy gets `.txt` added, so that its
 * link shows its text.
 */
const SHOWN_AS_IS = /\.(?:json|txt|ya?ml|csv|md|hbs|handlebars|mustache|png|jpe?g|gif|webp)$/i;

/** `page.html` → `page.html.txt`; `list.json` stays. */
export const toInertCopyPath = (path: string): string => (SHOWN_AS_IS.test(path) ? path : `${path}.txt`);
