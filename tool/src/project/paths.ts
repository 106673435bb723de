import { isAbsolute, join, relative, sep } from 'node:path';

/** The tool's own templates; `src/project` and `dist/project` are both two folders below the package. */
export const toolTemplatesDir = join(__dirname, '..', '..', 'templates');

/** True when `child` is `parent` itself or somewhere below it (both absolute). */
export function isInside(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path === '' || (path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path));
}

/** A path as messages show it: relative to `base` when below it, else absolute. */
export function displayPath(base: string, path: string): string {
  return isInside(base, path) && path !== base ? relative(base, path) : path;
}
