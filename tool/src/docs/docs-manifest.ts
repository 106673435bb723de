import { createHash } from 'node:crypto';
import { lstat, readFile, rm, rmdir } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { isJsonObject, readErrorMessage } from '@restbus/infra';
import { writeFileAtomic } from '@restbus/project-format';

/** Inside docs/: the list of files the last update generated, so the next one can tell them from the user's. */
export const MANIFEST_FILE = '.rest-tool-docs.json';

const GENERATED_BY = 'rest-tool docs --update';

/** Generated file (path inside docs/, '/'-separated) → sha256 of the content written. */
export type Manifest = Map<string, string>;

/**
 * What docs/ holds of ours: each file the manifest lists with the hashes it may have and still be ours — the one
 * last written, and the one an update that stopped midway was about to write (`pending`).
 */
export type KnownFiles = Map<string, string[]>;

export type ManifestState =
  { kind: 'absent' } | { kind: 'read'; known: KnownFiles } | { kind: 'unreadable'; problem: string };

export const hashOf = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

const isInside = (path: string): boolean =>
  path !== '' &&
  !posix.isAbsolute(path) &&
  !path.includes('\\') &&
  posix.normalize(path) === path &&
  !path.startsWith('..');

const entriesOf = (value: unknown): Array<[string, string]> =>
  value && typeof value === 'object'
    ? Object.entries(value).filter(
        (entry): entry is [string, string] => typeof entry[1] === 'string' && isInside(entry[0]),
      )
    : [];

/**
 * Reads docs/'s manifest. A manifest that is there but not one this tool wrote is `unreadable`: replacing it would
 * overwrite a file the tool did not write, and trusting it could make the tool replace the user's files.
 */
export async function readManifest(docsDir: string): Promise<ManifestState> {
  const file = join(docsDir, MANIFEST_FILE);
  const info = await lstat(file).catch(() => undefined);
  if (!info) return { kind: 'absent' };
  if (!info.isFile()) return { kind: 'unreadable', problem: 'not a plain file' };
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(file, 'utf8'));
  } catch (err) {
    return { kind: 'unreadable', problem: `not JSON: ${readErrorMessage(err)}` };
  }
  const { generatedBy, files, pending } = isJsonObject(parsed) ? parsed : {};
  if (generatedBy !== GENERATED_BY || !files || typeof files !== 'object') {
    return { kind: 'unreadable', problem: `no "generatedBy": "${GENERATED_BY}" with its "files"` };
  }
  const known: KnownFiles = new Map();
  for (const [path, hash] of [...entriesOf(files), ...entriesOf(pending)])
    known.set(path, [...(known.get(path) ?? []), hash]);
  return { kind: 'read', known };
}

const sorted = (manifest: Manifest): Record<string, string> =>
  Object.fromEntries([...manifest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));

/**
 * Writes the manifest. `pending` are the files an update is about to write: recorded before it writes them, so that
 * if it is killed midway, the next update still knows the files it did write as its own.
 */
export async function writeManifest(docsDir: string, files: Manifest, pending?: Manifest): Promise<void> {
  const content = {
    generatedBy: GENERATED_BY,
    files: sorted(files),
    ...(pending?.size && { pending: sorted(pending) }),
  };
  await writeFileAtomic(join(docsDir, MANIFEST_FILE), `${JSON.stringify(content, null, 2)}\n`);
}

/**
 * Removes what the previous update generated and this one did not (a service that left config.yml). A file changed
 * since it was generated is the user's now and stays. Folders left empty go too, up to docs/ itself.
 */
export async function removeStaleFiles(
  docsDir: string,
  previous: KnownFiles,
  current: Manifest,
  verbose: (line: string) => void,
): Promise<void> {
  for (const [path, hashes] of previous) {
    if (current.has(path)) continue;
    const file = join(docsDir, path);
    let content: Buffer;
    try {
      if (!(await lstat(file)).isFile()) continue;
      content = await readFile(file);
    } catch {
      continue;
    }
    if (!hashes.includes(hashOf(content))) {
      verbose(`kept ${path}: changed since it was generated`);
      continue;
    }
    await rm(file, { force: true });
    verbose(`removed ${path}`);
    for (let dir = dirname(file); dir.startsWith(`${docsDir}/`) || dir.startsWith(`${docsDir}\\`); dir = dirname(dir)) {
      try {
        await rmdir(dir);
      } catch {
        break;
      }
    }
  }
}
