import { appendFile, mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '../__tests__/sample-project';
import { watchProject } from './watch-project';

describe('watchProject', () => {
  let dir: string;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restbus-watch-'));
  });
  afterEach(() => rm(dir, { recursive: true, force: true }));

  // The mock server says "serving" as soon as watchProject returns: a change made then must not be missed.
  it('sees a change in a subfolder made as soon as it returns', async () => {
    await mkdir(join(dir, 'server', 'deep'), { recursive: true });
    await writeFile(join(dir, 'server', 'deep', 'monitoring.js'), 'exports.isAlive = 1;\n');
    const seen: string[] = [];
    const stop = watchProject(dir, () => seen.push('changed'), silentLogger, { debounceMs: 20, settleMs: 50 });
    try {
      await writeFile(join(dir, 'server', 'deep', 'monitoring.js'), 'exports.isAlive = 2;\n');
      for (let waited = 0; seen.length === 0 && waited < 40; waited++) await sleep(50);
      expect(seen).toEqual(['changed']);
    } finally {
      stop();
    }
  });

  it('waits until a file being written in pieces has stopped changing, then reports the change once', async () => {
    const file = join(dir, 'api.js');
    await writeFile(file, '');
    const seen: string[] = [];
    let finished = false;
    const stop = watchProject(dir, () => seen.push(finished ? 'after the last write' : 'while writing'), silentLogger, {
      debounceMs: 20,
      // Far above the 60 ms between pieces: a CI run under load once slept past 250 ms between two of them, and
      // the watcher rightly took the file for settled then.
      settleMs: 1000,
    });
    try {
      for (let piece = 0; piece < 8; piece++) {
        await appendFile(file, `exports.f${piece} = () => ${piece};\n`);
        await sleep(60);
      }
      finished = true;
      for (let waited = 0; seen.length === 0 && waited < 100; waited++) await sleep(50);
      await sleep(400);
      expect(seen).toEqual(['after the last write']);
    } finally {
      stop();
    }
  });
});
