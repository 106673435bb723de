import { join } from 'node:path';
import { isJsonObject } from '@restbus/infra';
import { readYamlFile, routeKey } from '@restbus/project-format';
import type { ProjectConfig } from '../project/project-config';

/**
 * The routes the listed services already serve, each mapped to its service path. A descriptor that does not read is
 * skipped here: `rest-tool validate` is where it gets reported.
 */
export async function readExistingRoutes(config: ProjectConfig): Promise<Map<string, string>> {
  const routes = new Map<string, string>();
  for (const entry of config.services) {
    const read = await readYamlFile(join(config.servicesDir, entry, 'service.yml'), entry);
    if (!read.ok) continue;
    const { value } = read.file;
    if (!isJsonObject(value)) continue;
    const uriTemplate = value.uriTemplate ?? value.urlPattern;
    const { methods } = value;
    if (typeof uriTemplate !== 'string' || !methods || typeof methods !== 'object') continue;
    for (const method of Object.keys(methods)) routes.set(routeKey(method, uriTemplate), entry);
  }
  return routes;
}
