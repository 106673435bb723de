import { stopWithParent } from './stop-with-parent';

const NPX = { npm_command: 'exec', npm_lifecycle_event: 'npx' };
const pause = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Watches a parent whose pid the test sets, and counts the calls of onParentGone. */
function watch(env: NodeJS.ProcessEnv, firstParent: number) {
  let parent = firstParent;
  let gone = 0;
  const unwatch = stopWithParent({ env, parentPid: () => parent, onParentGone: () => gone++, checkMs: 5 });
  return {
    reparent: (pid: number) => (parent = pid),
    gone: () => gone,
    unwatch,
  };
}

describe('stopWithParent', () => {
  it('stops once when the npx or npm exec that started the program has gone (it has a new parent)', async () => {
    const watched = watch(NPX, 4242);
    await pause(30);
    expect(watched.gone()).toBe(0);
    watched.reparent(1);
    await pause(30);
    watched.reparent(77);
    await pause(30);
    expect(watched.gone()).toBe(1);
  });

  it('watches what npm start or npm run started too', async () => {
    const watched = watch({ npm_lifecycle_event: 'start' }, 4242);
    watched.reparent(1);
    await pause(30);
    expect(watched.gone()).toBe(1);
  });

  it('never stops a program no package manager started: its parent may end (nohup, a shell)', async () => {
    const watched = watch({ PATH: '/usr/bin' }, 4242);
    watched.reparent(1);
    await pause(30);
    expect(watched.gone()).toBe(0);
  });

  it('never stops a program whose parent was init from the start (docker, systemd)', async () => {
    const watched = watch(NPX, 1);
    watched.reparent(99);
    await pause(30);
    expect(watched.gone()).toBe(0);
  });

  it('stops watching when asked', async () => {
    const watched = watch(NPX, 4242);
    watched.unwatch();
    watched.reparent(1);
    await pause(30);
    expect(watched.gone()).toBe(0);
  });
});
