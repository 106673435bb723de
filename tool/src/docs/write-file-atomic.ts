import { randomBytes } from 'node:crypto';
import { link, mkdir, rename, rm, writeFile } from 'node:fs/promises';
import { basename, dirname, join } from 'node:path';

const tempNameFor = (path: string): string =>
  join(dirname(path), `.${basename(path)}.${process.pid}.${randomBytes(4).toString('hex')}.tmp`);

/**
 * Writes through a temp file in the same folder and a rename: readers see the old file or the new one, never half.
 * `knownDirs` remembers the folders already made, for callers writing thousands of files.
 */
export async function writeFileAtomic(path: string, data: string | Uint8Array, knownDirs?: Set<string>): Promise<void> {
  const dir = dirname(path);
  if (!knownDirs?.has(dir)) {
    await mkdir(dir, { recursive: true });
    knownDirs?.add(dir);
  }
  const temp = tempNameFor(path);
  try {
    await writeFile(temp, data);
    await rename(temp, path);
  } catch (err) {
    await rm(temp, { force: true });
    throw err;
  }
}

/**
 * Like writeFileAtomic, but never replaces an existing file: a hard link fails with EEXIST where a rename would
 * overwrite. Returns false when the file already exists.
 */
export async function createFileAtomic(path: string, data: string | Uint8Array): Promise<boolean> {
  await mkdir(dirname(path), { recursive: true });
  const temp = tempNameFor(path);
  try {
    await writeFile(temp, data);
    await link(temp, path);
    return true;
  } catch (err) {
    const code = (err as NodeJS.ErrnoException).code;
    if (code === 'EEXIST') return false;
    // Some file systems (FAT, some network mounts) have no hard links; an exclusive create still never overwrites.
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
