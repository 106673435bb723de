import { relative, resolve } from 'node:path';
import { isInside } from '@restbus/project-format';
import { toolTemplatesDir } from './paths';

/**
 * A path as the user should read it in a message. Inside `base` (the folder rest-tool runs in, or the project folder),
 * relative to it, `.` for `base` itself: in the tool's container the user's folder is mounted at /work, and only a
 * relative path means the same on the host. rest-tool's own templates are `rest-tool's templates/…` (the user has no
 * such path); any other path stays as it is (an absolute one the user typed).
 */
export function showPath(base: string, path: string): string {
  const from = resolve(base);
  const absolute = resolve(from, path);
  if (isInside(from, absolute)) return relative(from, absolute) || '.';
  if (isInside(toolTemplatesDir, absolute)) return `rest-tool's ${relative(resolve(toolTemplatesDir, '..'), absolute)}`;
  return path;
}
