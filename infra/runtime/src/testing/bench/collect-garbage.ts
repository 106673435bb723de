import { PerformanceObserver, constants } from 'node:perf_hooks';
import { setFlagsFromString } from 'node:v8';
import { runInNewContext } from 'node:vm';

let gc: (() => void) | undefined;

/**
 * A full (mark-compact) collection now, for tests that measure what a process holds. Jest runs without
 * `--expose-gc`: the flag, set at run time, exposes `gc` to contexts made after it.
 */
export function collectGarbage(): void {
  if (!gc) {
    setFlagsFromString('--expose-gc');
    gc = runInNewContext('gc') as () => void;
  }
  gc();
}

/**
 * Full collections until the heap stops shrinking (a jest worker that ran other suites may hold garbage several rounds
 * deep: weak callbacks free more on the next one), resolved once the last one's entry has reached GC observers
 * (`readHeapLive`). In CI runs 21 and 23 one collection and a fixed 50 ms wait left a "before" figure 7 to 35 MB
 * above what the next collection found.
 */
export async function collectGarbageObserved(): Promise<void> {
  let last = Infinity;
  for (let round = 0; round < 10; round++) {
    collectGarbage();
    const used = process.memoryUsage().heapUsed;
    if (last - used < 64 * 1024) break;
    last = used;
  }
  const seen = new Promise<void>((done) => {
    const observer = new PerformanceObserver((list) => {
      const kindOf = (entry: object): number | undefined => (entry as { detail?: { kind?: number } }).detail?.kind;
      if (!list.getEntries().some((entry) => kindOf(entry) === constants.NODE_PERFORMANCE_GC_MAJOR)) return;
      observer.disconnect();
      done();
    });
    observer.observe({ entryTypes: ['gc'] });
  });
  collectGarbage();
  await seen;
  // Observers are called one after another in one turn: the others have had this batch once the next turn comes.
  await new Promise((done) => setImmediate(done));
}
