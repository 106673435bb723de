import { PerformanceObserver, constants } from 'node:perf_hooks';

let live: number | undefined;
let observer: PerformanceObserver | undefined;

/**
 * The heap in use just after the process's last full collection (V8's mark-compact), bytes: the data the program
 * holds, without the garbage `heapUsed` counts until V8 gets to it. Undefined until the first full collection since
 * the first call, which starts watching (a GC observer is cheap: one entry per collection, read in a batch).
 *
 * Why: a long run's heap in use swings with the young generation and the collections' timing (a soak's lowest sample
 * of 5 minutes still moved 14 to 17 MiB in a service whose data did not grow); this one changes only with the data.
 */
export function readHeapLive(): number | undefined {
  if (!observer) {
    observer = new PerformanceObserver((list) => {
      const kindOf = (entry: object): unknown => {
        const detail: unknown = Reflect.get(entry, 'detail');
        return typeof detail === 'object' && detail !== null ? Reflect.get(detail, 'kind') : undefined;
      };
      const major = list.getEntries().some((entry) => kindOf(entry) === constants.NODE_PERFORMANCE_GC_MAJOR);
      // Entries come a moment after their collection, in a batch: what was allocated since is a few requests' worth.
      if (major) live = process.memoryUsage().heapUsed;
    });
    observer.observe({ entryTypes: ['gc'] });
  }
  return live;
}
