import { spawnSync } from 'node:child_process';
import { resolve } from 'node:path';
import { constants, type PerformanceObserverCallback } from 'node:perf_hooks';

// The module as programs load it (jest's global setup builds it).
const BUILT = resolve(__dirname, '../../dist/process/read-heap-live.js');

type Entries = Parameters<PerformanceObserverCallback>[0];

/** A PerformanceObserver whose entries the test hands over; each made observer, with what it was told to observe. */
function fakeObservers(): { made: Array<{ observed: unknown[]; deliver(kinds: number[]): void }>; Fake: unknown } {
  const made: Array<{ observed: unknown[]; deliver(kinds: number[]): void }> = [];
  class Fake {
    constructor(callback: PerformanceObserverCallback) {
      const observer = this as unknown as Parameters<PerformanceObserverCallback>[1];
      made.push({
        observed: [],
        deliver: (kinds) => {
          const entries = kinds.map((kind) => ({ entryType: 'gc', detail: { kind } }));
          callback({ getEntries: () => entries } as unknown as Entries, observer);
        },
      });
    }
    observe(options: unknown): void {
      made[made.length - 1].observed.push(options);
    }
  }
  return { made, Fake };
}

/** readHeapLive from a fresh copy of its module, seeing the given PerformanceObserver. */
function loadWith(Fake: unknown): () => number | undefined {
  let readHeapLive: (() => number | undefined) | undefined;
  jest.isolateModules(() => {
    jest.doMock('node:perf_hooks', () => ({ ...jest.requireActual('node:perf_hooks'), PerformanceObserver: Fake }));
    ({ readHeapLive } = jest.requireActual<typeof import('./read-heap-live')>('./read-heap-live'));
  });
  jest.dontMock('node:perf_hooks');
  return readHeapLive!;
}

const { NODE_PERFORMANCE_GC_MAJOR: MAJOR, NODE_PERFORMANCE_GC_MINOR: MINOR } = constants;

describe('readHeapLive', () => {
  it('knows nothing until a full collection, then tells the heap in use and keeps it until the next full one', () => {
    const { made, Fake } = fakeObservers();
    const readHeapLive = loadWith(Fake);
    expect(readHeapLive()).toBeUndefined();
    expect(made).toHaveLength(1);
    expect(made[0].observed).toEqual([{ entryTypes: ['gc'] }]);
    // A young-generation collection says nothing of the data held.
    made[0].deliver([MINOR]);
    expect(readHeapLive()).toBeUndefined();
    made[0].deliver([MINOR, MAJOR]);
    const live = readHeapLive();
    expect(typeof live).toBe('number');
    expect(live).toBeGreaterThan(0);
    // Garbage made since, and young collections, leave the figure as the full collection found it.
    const garbage = Array.from({ length: 100 }, () => Array.from({ length: 1000 }, (_, i) => ({ i })));
    made[0].deliver([MINOR]);
    expect(garbage).toHaveLength(100);
    expect(readHeapLive()).toBe(live);
    // The next full collection gives a new figure; reading watches with the one observer it started with.
    made[0].deliver([MAJOR]);
    expect(readHeapLive()).toBeGreaterThan(0);
    expect(made).toHaveLength(1);
  });

  it("reads V8's own full collections: undefined before the first, a positive whole number of bytes after it", () => {
    // A child process: a forced full collection (`--expose-gc`) is its own business, not a jest worker's.
    const script = `
      const { readHeapLive } = require(${JSON.stringify(BUILT)});
      (async () => {
        const before = readHeapLive();
        gc();
        // The collection's entry reaches observers a turn or so later.
        let turns = 0;
        while (readHeapLive() === undefined && turns < 1000) {
          await new Promise((done) => setTimeout(done, 5));
          turns += 1;
        }
        process.stdout.write(JSON.stringify({ before: before === undefined ? 'undefined' : before, after: readHeapLive() }));
      })();`;
    const run = spawnSync(process.execPath, ['--expose-gc', '-e', script], { encoding: 'utf8', timeout: 60_000 });
    expect(run.stderr).toBe('');
    const result = JSON.parse(run.stdout) as { before: unknown; after: unknown };
    expect(result.before).toBe('undefined');
    expect(Number.isInteger(result.after)).toBe(true);
    expect(result.after).toBeGreaterThan(0);
  });
});
