import { coalesceRuns } from './coalesce-runs';

/** A task whose runs the test ends one by one, counting them and how many ran at once. */
function controlledTask() {
  const pending: Array<{ resolve: (value: number) => void; reject: (err: Error) => void }> = [];
  let runs = 0;
  let running = 0;
  let mostAtOnce = 0;
  const task = (): Promise<number> => {
    runs++;
    running++;
    mostAtOnce = Math.max(mostAtOnce, running);
    const run = runs;
    return new Promise<number>((resolve, reject) => {
      pending.push({
        resolve: () => {
          running--;
          resolve(run);
        },
        reject: (err) => {
          running--;
          reject(err);
        },
      });
    });
  };
  // Lets the coalescer start the queued run, if any (every promise callback runs before setImmediate's).
  const settle = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));
  return {
    task,
    runs: () => runs,
    mostAtOnce: () => mostAtOnce,
    async finish(): Promise<void> {
      pending.shift()!.resolve(0);
      await settle();
    },
    async fail(): Promise<void> {
      pending.shift()!.reject(new Error('broken'));
      await settle();
    },
  };
}

describe('coalesceRuns', () => {
  it('runs 50 calls made at once as one run and one queued run, never two at a time', async () => {
    const controlled = controlledTask();
    const run = coalesceRuns(controlled.task);
    const results = Array.from({ length: 50 }, () => run());
    expect(controlled.runs()).toBe(1);
    await controlled.finish();
    expect(controlled.runs()).toBe(2);
    await controlled.finish();
    expect(await Promise.all(results)).toEqual([1, ...Array<number>(49).fill(2)]);
    expect([controlled.runs(), controlled.mostAtOnce()]).toEqual([2, 1]);
  });

  it('answers each call with a run that started after it was made', async () => {
    const controlled = controlledTask();
    const run = coalesceRuns(controlled.task);
    const first = run();
    const queued = run();
    await controlled.finish();
    // The queued run has started: a call now needs a third run, which waits for it.
    const third = run();
    expect(controlled.runs()).toBe(2);
    await controlled.finish();
    await controlled.finish();
    expect([await first, await queued, await third]).toEqual([1, 2, 3]);
  });

  it('rejects the callers of a run that failed, and runs again when called', async () => {
    const controlled = controlledTask();
    const run = coalesceRuns(controlled.task);
    const failing = run();
    const queued = run();
    await controlled.fail();
    await controlled.finish();
    await expect(failing).rejects.toThrow('broken');
    expect(await queued).toBe(2);
    const again = run();
    await controlled.finish();
    expect(await again).toBe(3);
  });
});
