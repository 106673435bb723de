import { collectGarbageObserved } from '../testing/collect-garbage';
import { readHeapLive } from './read-heap-live';

const MIB = 1024 * 1024;

/** Collects fully and resolves with what readHeapLive says once the collection's entry has come. */
async function liveAfterCollection(): Promise<number | undefined> {
  await collectGarbageObserved();
  return readHeapLive();
}

describe('readHeapLive', () => {
  it('tells the heap in use after a full collection: data held counts, garbage made since does not', async () => {
    readHeapLive();
    let held: number[][] | undefined = Array.from({ length: 400 }, () => Array.from({ length: 10_000 }, (_, i) => i));
    const holding = await liveAfterCollection();
    // Garbage after the collection: heapUsed grows with it, the live figure does not.
    let garbage: unknown[] = Array.from({ length: 100 }, () => Array.from({ length: 1000 }, (_, i) => ({ i })));
    garbage = [];
    expect(readHeapLive()).toBe(holding);
    expect(held.length).toBe(400);
    held = undefined;
    const released = await liveAfterCollection();
    expect(holding).toBeGreaterThan(30 * MIB);
    // 400 arrays of 10,000 small integers: some 31 MiB that the next full collection no longer finds alive.
    expect(holding! - released!).toBeGreaterThan(25 * MIB);
    expect(garbage).toEqual([]);
  });
});
