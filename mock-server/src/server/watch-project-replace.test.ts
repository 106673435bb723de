import { mkdir, mkdtemp, rename, rm, unlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { silentLogger } from '../__tests__/sample-project';
import { watchProject } from './watch-project';

/** Counts the changes the watcher reports, and waits for the next one after an action. */
function countChanges(dir: string): {
  stop: () => void;
  seesChangeAfter: (action: () => Promise<void>, waitMs?: number) => Promise<boolean>;
} {
  let changes = 0;
  const stop = watchProject(dir, () => changes++, silentLogger, { debounceMs: 20, settleMs: 60 });
  return {
    stop,
    async seesChangeAfter(action, waitMs = 3000) {
      const before = changes;
      await action();
      for (let waited = 0; waited < waitMs && changes === before; waited += 25) await sleep(25);
      return changes > before;
    },
  };
}

describe('watchProject after files are replaced, removed or added', () => {
  let dir: string;
  let watcher: ReturnType<typeof countChanges> | undefined;
  beforeEach(async () => {
    dir = await mkdtemp(join(tmpdir(), 'restbus-watch-replace-'));
    await mkdir(join(dir, 'services/users'), { recursive: true });
    await writeFile(join(dir, 'services/users/service.yml'), 'name: Users\n');
    await writeFile(join(dir, 'services/users/body.json'), '{"v":0}');
  });
  afterEach(async () => {
    watcher?.stop();
    watcher = undefined;
    await rm(dir, { recursive: true, force: true });
  });

  // What `sed -i` and an editor's atomic save do: write a temp file next to it, rename it over the original.
  async function replaceByRename(file: string, content: string): Promise<void> {
    await writeFile(`${file}.tmp-save`, content);
    await rename(`${file}.tmp-save`, file);
  }

  it.each(['services/users/service.yml', 'services/users/body.json'])(
    'sees %s replaced by a rename, and later writes to it in place',
    async (name) => {
      const file = join(dir, name);
      watcher = countChanges(dir);
      await sleep(100);
      expect(await watcher.seesChangeAfter(() => replaceByRename(file, 'replaced\n'))).toBe(true);
      expect(await watcher.seesChangeAfter(() => writeFile(file, 'written in place\n'))).toBe(true);
      expect(await watcher.seesChangeAfter(() => writeFile(file, 'written in place again\n'))).toBe(true);
    },
  );

  it('sees a file that was deleted and created again, and later writes to it', async () => {
    const file = join(dir, 'services/users/body.json');
    watcher = countChanges(dir);
    await sleep(100);
    expect(await watcher.seesChangeAfter(() => unlink(file))).toBe(true);
    expect(await watcher.seesChangeAfter(() => writeFile(file, '{"v":1}'))).toBe(true);
    expect(await watcher.seesChangeAfter(() => writeFile(file, '{"v":2}'))).toBe(true);
  });

  it('sees files in a folder created after the watch started, and later writes to them', async () => {
    watcher = countChanges(dir);
    await sleep(100);
    const file = join(dir, 'services/orders/service.yml');
    expect(
      await watcher.seesChangeAfter(async () => {
        await mkdir(join(dir, 'services/orders'));
        await writeFile(file, 'name: Orders\n');
      }),
    ).toBe(true);
    expect(await watcher.seesChangeAfter(() => writeFile(file, 'name: Orders again\n'))).toBe(true);
    expect(await watcher.seesChangeAfter(() => replaceByRename(file, 'name: Orders replaced\n'))).toBe(true);
    expect(await watcher.seesChangeAfter(() => writeFile(file, 'name: Orders written in place\n'))).toBe(true);
  });

  it('sees files in a folder that was deleted and created again, and later writes to them', async () => {
    watcher = countChanges(dir);
    await sleep(100);
    const folder = join(dir, 'services/users');
    const file = join(folder, 'service.yml');
    expect(await watcher.seesChangeAfter(() => rm(folder, { recursive: true }))).toBe(true);
    expect(
      await watcher.seesChangeAfter(async () => {
        await mkdir(folder);
        await writeFile(file, 'name: Users again\n');
      }),
    ).toBe(true);
    await sleep(100);
    expect(await watcher.seesChangeAfter(() => writeFile(file, 'name: Users written in place\n'))).toBe(true);
  });

  it('ignores changes under node_modules, docs and test folders, even ones created after the watch started', async () => {
    watcher = countChanges(dir);
    await sleep(100);
    await mkdir(join(dir, 'node_modules/some-package'), { recursive: true });
    await mkdir(join(dir, 'docs'));
    await sleep(300);
    expect(
      await watcher.seesChangeAfter(() => writeFile(join(dir, 'node_modules/some-package/index.js'), ''), 500),
    ).toBe(false);
    expect(await watcher.seesChangeAfter(() => writeFile(join(dir, 'docs/index.html'), ''), 500)).toBe(false);
  });
});
