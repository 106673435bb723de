import { posix } from 'node:path';

/**
 * A service's folder relative to the project, as upstream rest-tool named it for templates (`contentPath`):
 * `servicesRoot` + the listed path, e.g. `services/monitoring/isAlive`. Project templates join files to it
 * (`path.resolve('{{contentPath}}', file)`, `{{relPath}}/{{contentPath}}/{{mockBody}}`).
 */
export const toContentPath = (servicesRoot: unknown, servicePath: string): string =>
  posix.join(String(servicesRoot), servicePath);
