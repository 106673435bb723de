import { randomBytes } from 'node:crypto';
import { link, mkdir, open, readFile, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';
import { readErrorCode } from '@restbus/infra';

/** `text` cut to at most `max` UTF-8 bytes, never inside a character. */
function cutToBytes(text: string, max: number): string {
  if (Buffer.byteLength(text) <= max) return text;
  let cut = '';
  for (const char of text) {
    if (Buffer.byteLength(cut + char) > max) break;
    cut += char;
  }
  return cut;
}

/**
 * A name beside `path` for a temporary file or folder, `.<name>.rest-tool-<pid>-<8 hex>.tmp`: hidden, on the same
 * file system (so a rename is atomic), and recognisable, so a later run can remove what a killed one left (see
 * parseTempName). The name is cut so it stays within the 255 bytes a file name may have wherever `path`'s fits.
 */
export const siblingTempPath = (path: string): string =>
  join(
    dirname(path),
    `.${cutToBytes(basename(path), 200)}.rest-tool-${process.pid}-${randomBytes(4).toString('hex')}.tmp`,
  );

const TEMP_NAME = /^\.(.+)\.rest-tool-(\d+)-[0-9a-f]{8}\.tmp$/;
// Before temp files were named for rest-tool: only trusted next to a file of that name the docs generate.
const OLDER_TEMP_NAME = /^\.(.+)\.(\d+)\.[0-9a-f]{8}\.tmp$/;

/** The file a temp file was for and the pid that made it, or undefined for a name no rest-tool temp file has. */
export function parseTempName(name: string): { target: string; pid: number; older: boolean } | undefined {
  const match = TEMP_NAME.exec(name);
  if (match) return { target: match[1], pid: Number(match[2]), older: false };
  const older = OLDER_TEMP_NAME.exec(name);
  return older ? { target: older[1], pid: Number(older[2]), older: true } : undefined;
}

export interface WriteOptions {
  /** The new file's permissions (default 0o644). */
  mode?: number;
  /**
   * Flush the data to disk before the rename (default true), so that after a power loss the file holds the old
   * content or the new, never an empty one. Files that are regenerated anyway (docs/) skip it: a flush each costs
   * milliseconds over thousands of files.
   */
  durable?: boolean;
  /** Folders already made, remembered across calls by a caller writing many files. */
  knownDirs?: Set<string>;
}

/**
 * Writes a file through a temporary file beside it and a rename over the target, making its folder first: a reader
 * (or a crash) sees the old content or the new one, never half of it.
 */
export async function writeFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: WriteOptions = {},
): Promise<void> {
  const { mode = 0o644, durable = true, knownDirs } = options;
  const dir = dirname(path);
  if (!knownDirs?.has(dir)) {
    await mkdir(dir, { recursive: true });
    knownDirs?.add(dir);
  }
  const temp = siblingTempPath(path);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(data);
      if (durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * Like writeFileAtomic, but never replaces an existing file: a hard link fails with EEXIST where a rename would
 * overwrite. Returns false when the file already exists. `durable` flushes the data before the link (default
 * false: generated tests are cheap to write again; a recording is not).
 */
export async function createFileAtomic(
  path: string,
  data: string | Uint8Array,
  options: { durable?: boolean } = {},
): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const temp = siblingTempPath(path);
  try {
    const handle = await open(temp, 'wx', 0o644);
    try {
      await handle.writeFile(data);
      if (options.durable) await handle.sync();
    } finally {
      await handle.close();
    }
    await link(temp, path);
    return true;
  } catch (err) {
    const code = readErrorCode(err);
    if (code === 'EEXIST') return false;
    // Some file systems (FAT, some network mounts) have no hard links; an exclusive create still never overwrites.
    if (code === 'EPERM' || code === 'ENOTSUP' || code === 'EOPNOTSUPP') {
      try {
        await writeFile(path, data, { flag: 'wx' });
        return true;
      } catch (fallback) {
        if (readErrorCode(fallback) === 'EEXIST') return false;
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
export async function replaceFileIfUnchanged(path: string, expected: string, text: string): Promise<boolean> {
  const mode = (await stat(path)).mode & 0o777;
  const temp = siblingTempPath(path);
  try {
    const handle = await open(temp, 'wx', mode);
    try {
      await handle.writeFile(text);
      await handle.sync();
    } finally {
      await handle.close();
    }
    if ((await readFile(path, 'utf8')) !== expected) return false;
    await rename(temp, path);
    return true;
  } finally {
    await rm(temp, { force: true });
  }
}
