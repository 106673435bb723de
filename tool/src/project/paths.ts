import { join, relative } from 'node:path';
import { isInside } from '@restbus/project-format';

/** The tool's own templates; `src/project` and `dist/project` are both two folders below the package. */
export const toolTemplatesDir = join(__dirname, '..', '..', 'templates');

/** A path as messages show it: relative to `base` when below it, else absolute. */
export function displayPath(base: string, path: string): string {
  return isInside(base, path) && path !== base ? relative(base, path) : path;
}
