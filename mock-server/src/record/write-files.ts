import { randomBytes } from 'node:crypto';
import { link, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

// Writes that never leave half a file and never replace one they were not meant to (the rest-tool's
// write-file-atomic, for the recorder).

/** A hidden name beside `path`, on the same file system so that a rename or a link is atomic. */
const tempBeside = (path: string): string =>
  join(
    dirname(path),
    `.${basename(path).slice(0, 200)}.restbus-record-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );

/** Writes `data` to a new temporary file beside `path`, flushed to disk. */
async function writeTemp(path: string, data: string | Uint8Array, mode = 0o644): Promise<string> {
  const temp = tempBeside(path);
  const handle = await open(temp, 'wx', mode);
  try {
    await handle.writeFile(data);
    await handle.sync();
  } catch (err) {
    await handle.close();
    await rm(temp, { force: true });
    throw err;
  }
  await handle.close();
  return temp;
}

/**
 * Creates `path` with `data`, complete or not at all, and never over an existing file: the data goes to a
 * temporary file that is then hard-linked to `path` (a link fails where a file exists, where a rename would
 * replace it). Returns false when `path` exists.
 */
export async function createFileExclusive(path: string, data: string | Uint8Array): Promise<boolean> {
  const temp = await writeTemp(path, data);
  try {
    await link(temp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // A file system without hard links (FAT, some network mounts): an exclusive create still never overwrites.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      try {
        await writeFile(path, data, { flag: 'wx' });
        return true;
      } catch (fallback) {
        if ((fallback as NodeJS.ErrnoException).code === 'EEXIST') return false;
        throw fallback;
      }
    }
    throw err;
  } finally {
    await rm(temp, { force: true });
  }
}

/**
 * Replaces the file at `path`, which was read as `expected`, with `text` through a temporary file and a rename, so
 * that a reader sees the old file or the new one. Returns false, changing nothing, when the file no longer reads
 * as `expected` (someone edited it meanwhile): the caller reads it again.
 */
export async function replaceFileAtomic(path: string, expected: string, text: string): Promise<boolean> {
  const mode = (await stat(path)).mode & 0o777;
  const temp = await writeTemp(path, text, mode);
  try {
    if ((await readFile(path, 'utf8')) !== expected) return false;
    await rename(temp, path);
    return true;
  } finally {
    await rm(temp, { force: true });
  }
}
