import { lstat, readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { hashOf, MANIFEST_FILE, type ManifestState } from './docs-manifest';
import { forEachLimited } from './for-each-limited';

export interface DocsOutput {
  data: Buffer;
  hash: string;
}

export interface DocsUpdatePlan {
  /** The files to (re)write; a file that already holds what would be written is not among them. */
  toWrite: string[];
  /** The files in docs/ now that are the tool's, with the hash of what they hold. */
  ours: Map<string, string>;
  /** One message per file in the way, naming it as `docs/…` and saying what to do. */
  problems: string[];
}

const MOVE_IT = 'move it out of docs/ (or delete it) and run again, or pass --force to replace it';

/**
 * Decides, for every file the update generates, whether it may be written, reading docs/ and touching nothing. A
 * file may be replaced when the manifest lists it with the content it has now (ours, unchanged since); a file that
 * already holds exactly what would be written is taken as ours whatever the manifest says (docs/ of a rest-tool
 * from before the manifest, or an update killed after writing it). Anything else in the way — a hand-written file,
 * a generated file edited since, a folder or a link where a file goes — is a problem, unless `force` is given, which
 * replaces files and links but never a folder.
 */
export async function planDocsUpdate(
  docsDir: string,
  outputs: Map<string, DocsOutput>,
  manifest: ManifestState,
  force: boolean,
): Promise<DocsUpdatePlan> {
  const toWrite: string[] = [];
  const ours = new Map<string, string>();
  const problems = new Map<string, string>();
  if (manifest.kind === 'unreadable' && !force) {
    problems.set(
      MANIFEST_FILE,
      `docs/${MANIFEST_FILE}: not the list of generated files rest-tool docs keeps (${manifest.problem}); ` +
        'delete it, then run again (files that hold what rest-tool docs writes are taken over)',
    );
  }
  const known = manifest.kind === 'read' ? manifest.known : new Map<string, string[]>();
  await forEachLimited([...outputs], 32, async ([path, output]) => {
    const file = join(docsDir, ...path.split('/'));
    // Missing, or a file instead of a folder above it (findFolderProblems reports that one): nothing in the way.
    const info = await lstat(file).catch(() => undefined);
    if (!info) {
      toWrite.push(path);
      return;
    }
    if (info.isDirectory()) {
      problems.set(path, `docs/${path}: a folder where rest-tool docs writes a file; ${MOVE_IT}`);
      return;
    }
    if (!info.isFile()) {
      if (force) toWrite.push(path);
      else
        problems.set(
          path,
          `docs/${path}: a ${info.isSymbolicLink() ? 'symbolic link' : 'special file'} where rest-tool docs writes a file; ${MOVE_IT}`,
        );
      return;
    }
    const hash = hashOf(await readFile(file));
    if (hash === output.hash) {
      ours.set(path, hash);
      return;
    }
    const hashes = known.get(path);
    if (hashes?.includes(hash)) ours.set(path, hash);
    if (force || hashes?.includes(hash)) toWrite.push(path);
    else if (hashes) problems.set(path, `docs/${path}: changed since rest-tool docs wrote it; ${MOVE_IT}`);
    else if (manifest.kind === 'read') problems.set(path, `docs/${path}: not written by rest-tool docs; ${MOVE_IT}`);
    else {
      problems.set(
        path,
        `docs/${path}: not known to be written by rest-tool docs (docs/ has no ${MANIFEST_FILE}, the list of the ` +
          `files it wrote) and not what it writes now; ${MOVE_IT}`,
      );
    }
  });
  const sorted = (paths: Iterable<string>): string[] => [...paths].sort();
  return {
    toWrite: sorted(toWrite),
    ours,
    problems: sorted(problems.keys()).flatMap((path) => problems.get(path) ?? []),
  };
}
