import { createHash } from 'node:crypto';
import { readFile, rm, rmdir } from 'node:fs/promises';
import { dirname, join, posix } from 'node:path';
import { writeFileAtomic } from './write-file-atomic';

/** Inside docs/: the list of files the last update generated, so the next one can tell them from the user's. */
export const MANIFEST_FILE = '.rest-tool-docs.json';

/** Generated file (path inside docs/, '/'-separated) → sha256 of the content written. */
export type Manifest = Map<string, string>;

export const hashOf = (data: string | Uint8Array): string => createHash('sha256').update(data).digest('hex');

const isInside = (path: string): boolean =>
  path !== '' &&
  !posix.isAbsolute(path) &&
  !path.includes('\\') &&
  posix.normalize(path) === path &&
  !path.startsWith('..');

export async function readManifest(docsDir: string): Promise<Manifest> {
  let parsed: unknown;
  try {
    parsed = JSON.parse(await readFile(join(docsDir, MANIFEST_FILE), 'utf8'));
  } catch {
    // No manifest (first run, or docs made by upstream rest-tool): nothing here is known to be ours.
    return new Map();
  }
  const files = (parsed as { files?: unknown })?.files;
  if (!files || typeof files !== 'object') return new Map();
  return new Map(
    Object.entries(files as Record<string, unknown>).filter(
      (entry): entry is [string, string] => typeof entry[1] === 'string' && isInside(entry[0]),
    ),
  );
}

export async function writeManifest(docsDir: string, manifest: Manifest): Promise<void> {
  const files = Object.fromEntries([...manifest].sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  await writeFileAtomic(
    join(docsDir, MANIFEST_FILE),
    `${JSON.stringify({ generatedBy: 'rest-tool docs --update', files }, null, 2)}\n`,
  );
}

/**
 * Removes what the previous update generated and this one did not (a service that left config.yml). A file changed
 * since it was generated is the user's now and stays. Folders left empty go too, up to docs/ itself.
 */
export async function removeStaleFiles(
  docsDir: string,
  previous: Manifest,
  current: Manifest,
  verbose: (line: string) => void,
): Promise<void> {
  for (const [path, hash] of previous) {
    if (current.has(path)) continue;
    const file = join(docsDir, path);
    let content: Buffer;
    try {
      content = await readFile(file);
    } catch {
      continue;
    }
    if (hashOf(content) !== hash) {
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
