import { lstat, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isInside } from '@restbus/project-format';
import { forEachLimited } from './for-each-limited';

/** The nearest path at or above `path` that exists (as lstat sees it: a link counts, wherever it leads). */
async function nearestExisting(path: string): Promise<string> {
  let at = path;
  while (
    !(await lstat(at).then(
      () => true,
      () => false,
    )) &&
    at !== dirname(at)
  )
    at = dirname(at);
  return at;
}

/** Where the existing part of `path` really is, or undefined for a link that leads nowhere. */
const resolveExisting = async (path: string): Promise<string | undefined> =>
  realpath(await nearestExisting(path)).catch(() => undefined);

/** The first folder from docs/ down to `existing` that is a link leading out of `realDocs` (or nowhere). */
async function findEscapingLink(docsDir: string, existing: string, realDocs: string): Promise<string> {
  let at = docsDir;
  for (const segment of existing.slice(docsDir.length + 1).split(/[\\/]/)) {
    at = join(at, segment);
    const real = await realpath(at).catch(() => undefined);
    if (!real || !isInside(realDocs, real)) return at;
  }
  return existing;
}

/** `path` inside docs/, '/'-separated; '' for docs/ itself. */
const insideDocs = (docsDir: string, path: string): string =>
  path === docsDir
    ? ''
    : path
        .slice(docsDir.length + 1)
        .split('\\')
        .join('/');

/**
 * Checks, before anything is written, that docs/ and every folder inside it that the update writes to or removes from
 * (`dirs`, '/'-separated inside docs/) really are in place: docs/ a folder of the project and the others inside
 * docs/, even through symbolic links (as `add` checks servicesRoot), and no file where a folder must be. Returns the
 * folders at fault (inside docs/, '' for docs/ itself) with a message each, naming it as `docs/…`.
 */
export async function findFolderProblems(
  projectRoot: string,
  docsDir: string,
  dirs: Iterable<string>,
): Promise<Map<string, string>> {
  const realRoot = await realpath(projectRoot);
  const realDocs = await resolveExisting(docsDir);
  if (!realDocs || !isInside(realRoot, realDocs)) {
    const where = realDocs ? `to ${realDocs}, outside the project` : 'nowhere';
    return new Map([['', `docs: a symbolic link leading ${where}; make docs a folder of the project, then run again`]]);
  }
  const docsInfo = await stat(docsDir).catch(() => undefined);
  const problems = new Map<string, string>();
  if (!docsInfo) return problems;
  if (!docsInfo.isDirectory()) {
    return problems.set('', 'docs: a file where rest-tool docs needs a folder; move it away, then run again');
  }
  await forEachLimited([...new Set(dirs)], 32, async (dir) => {
    const existing = await nearestExisting(join(docsDir, ...dir.split('/').filter(Boolean)));
    if (existing === docsDir) return;
    const real = await realpath(existing).catch(() => undefined);
    if (!real || !isInside(realDocs, real)) {
      const link = await findEscapingLink(docsDir, existing, realDocs);
      const target = await realpath(link).catch(() => undefined);
      const at = insideDocs(docsDir, link);
      problems.set(
        at,
        `docs/${at}: a symbolic link leading ${target ? `out of docs/ (to ${target})` : 'nowhere'}; ` +
          'replace the link with a folder, then run again',
      );
    } else if (!(await stat(real)).isDirectory()) {
      const at = insideDocs(docsDir, existing);
      problems.set(at, `docs/${at}: a file where rest-tool docs needs a folder; move it out of docs/, then run again`);
    }
  });
  return new Map([...problems].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}
