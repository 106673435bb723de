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
 * A full collection, resolved once its entry has reached GC observers (`readHeapLive`). Not a fixed wait: on a loaded
 * machine the entry came after 50 ms, and a test read the live heap of an earlier collection (CI run 21).
 */
export async function collectGarbageObserved(): Promise<void> {
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
