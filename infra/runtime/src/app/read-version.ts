import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { isJsonObject } from '../json/is-json-object';

/** The version in the package.json one folder above `dir` (a package's `src/` or `dist/`). */
export function readPackageVersion(dir: string): string {
  const manifest: unknown = JSON.parse(readFileSync(join(dir, '..', 'package.json'), 'utf8'));
  const version: unknown = isJsonObject(manifest) ? manifest.version : undefined;
  if (typeof version !== 'string') throw new Error(`${join(dir, '..', 'package.json')} has no version`);
  return version;
}
