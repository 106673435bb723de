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

/** A full collection, then a moment for its entry to reach GC observers (`readHeapLive`): they get it in a batch. */
export async function collectGarbageObserved(): Promise<void> {
  collectGarbage();
  await new Promise((done) => setTimeout(done, 50));
}
