import { lstat, readdir, rm } from 'node:fs/promises';
import { join, posix } from 'node:path';
import { forEachLimited } from './for-each-limited';
import { readErrorCode } from '@restbus/infra';
import { parseTempName } from '@restbus/project-format';

/** A temp file this old is a leftover whatever its pid: writing one small docs file takes milliseconds. */
export const LEFTOVER_AGE_MS = 10 * 60 * 1000;

const isRunning = (pid: number): boolean => {
  try {
    process.kill(pid, 0);
    return true;
  } catch (err) {
    // EPERM: the process exists, it only belongs to someone else.
    return readErrorCode(err) === 'EPERM';
  }
};

/**
 * Removes the temp files a killed `docs --update` left in the folders it writes to (`dirs`, '/'-separated inside
 * docs/, '' for docs/ itself). A temp file is a leftover when its pid runs no process, or is this process's (a
 * container starts every run with the same pid, and this run has not written yet), or it is older than
 * LEFTOVER_AGE_MS (a pid from another host or container may name some unrelated process here). Temp files of the
 * older naming are removed only beside a file of the name they were for (`generated`), so a user's `.x.1.abcdef12.tmp`
 * elsewhere stays.
 */
export async function removeLeftoverTempFiles(
  docsDir: string,
  dirs: Iterable<string>,
  generated: ReadonlySet<string>,
  verbose: (line: string) => void,
  now = Date.now(),
): Promise<number> {
  let removed = 0;
  await forEachLimited([...dirs], 32, async (dir) => {
    const names = await readdir(join(docsDir, dir)).catch((): string[] => []);
    for (const name of names) {
      const temp = parseTempName(name);
      if (!temp) continue;
      if (temp.older && !generated.has(posix.join(dir, temp.target))) continue;
      const file = join(docsDir, dir, name);
      const info = await lstat(file).catch(() => undefined);
      if (!info?.isFile()) continue;
      const leftover = temp.pid === process.pid || !isRunning(temp.pid) || now - info.mtimeMs > LEFTOVER_AGE_MS;
      if (!leftover) continue;
      await rm(file, { force: true });
      removed++;
      verbose(`removed ${posix.join(dir, name)}, left by an update that did not finish`);
    }
  });
  return removed;
}
