import { mkdir, mkdtemp, readFile, readdir, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { basename, join } from 'node:path';
import { createFileAtomic, parseTempName, siblingTempPath, writeFileAtomic } from './write-file-atomic';

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), 'atomic-'));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe('writeFileAtomic', () => {
  it('replaces a file whole, with the mode asked for, and leaves no temp file beside it', async () => {
    const file = join(dir, 'config.yml');
    await writeFile(file, 'old\n');
    await writeFileAtomic(file, 'new\n', { mode: 0o600 });
    expect(await readFile(file, 'utf8')).toBe('new\n');
    expect((await stat(file)).mode & 0o777).toBe(0o600);
    expect(await readdir(dir)).toEqual(['config.yml']);
  });

  it('makes the folders it writes into, once per folder for a caller that remembers them', async () => {
    const knownDirs = new Set<string>();
    await writeFileAtomic(join(dir, 'a/b/one.html'), '1', { durable: false, knownDirs });
    await writeFileAtomic(join(dir, 'a/b/two.html'), '2', { durable: false, knownDirs });
    expect((await readdir(join(dir, 'a/b'))).sort()).toEqual(['one.html', 'two.html']);
    expect([...knownDirs]).toEqual([join(dir, 'a/b')]);
  });

  it('leaves what was there, and no temp file, when the rename fails', async () => {
    const target = join(dir, 'docs');
    await mkdir(target);
    await writeFile(join(target, 'kept.txt'), 'kept\n');
    // A folder where the file should go: the rename over it fails.
    await expect(writeFileAtomic(target, 'x')).rejects.toMatchObject({
      code: expect.stringMatching(/^E(ISDIR|NOTEMPTY|EXIST)$/),
    });
    expect(await readFile(join(target, 'kept.txt'), 'utf8')).toBe('kept\n');
    expect(await readdir(dir)).toEqual(['docs']);
  });
});

describe('createFileAtomic', () => {
  it('writes a new file, and never replaces an existing one (false)', async () => {
    const file = join(dir, 'test/Get Orders.mjs');
    expect(await createFileAtomic(file, 'first')).toBe(true);
    expect(await createFileAtomic(file, 'second')).toBe(false);
    expect(await readFile(file, 'utf8')).toBe('first');
    expect(await readdir(join(dir, 'test'))).toEqual(['Get Orders.mjs']);
  });
});

describe('siblingTempPath and parseTempName', () => {
  it('name temp files so a later run knows the file they were for and the process that made them', () => {
    const temp = siblingTempPath(join(dir, 'index.html'));
    expect(parseTempName(basename(temp))).toEqual({ target: 'index.html', pid: process.pid, older: false });
    expect(parseTempName('.index.html.swp')).toBeUndefined();
  });

  it('keep a temp name within 255 bytes for a file name of 255', () => {
    const temp = basename(siblingTempPath(join(dir, `${'é'.repeat(126)}.x`)));
    expect(Buffer.byteLength(temp)).toBeLessThanOrEqual(255);
    expect(parseTempName(temp)?.pid).toBe(process.pid);
  });
});
