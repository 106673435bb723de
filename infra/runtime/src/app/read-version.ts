import { readFileSync } from 'node:fs';
import { join } from 'node:path';

/** The version in the package.json one folder above `dir` (a package's `src/` or `dist/`). */
export function readPackageVersion(dir: string): string {
  return (JSON.parse(readFileSync(join(dir, '..', 'package.json'), 'utf8')) as { version: string }).version;
}
