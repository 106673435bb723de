import { isAbsolute, relative, sep } from 'node:path';

/** True when `child` is `parent` itself or somewhere below it (both absolute, resolved by the caller). */
export function isInside(parent: string, child: string): boolean {
  const path = relative(parent, child);
  return path === '' || (path !== '..' && !path.startsWith(`..${sep}`) && !isAbsolute(path));
}
