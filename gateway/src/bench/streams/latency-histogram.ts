/** Delivery latencies in 10 µs buckets up to 10 s (the last bucket holds everything slower): constant memory and time. */
export interface LatencyHistogram {
  record(ms: number): void;
  /** The latency (ms) below which `q` of the recorded ones fall; NaN when none was recorded. */
  quantile(q: number): number;
  max(): number;
  count(): number;
}

const BUCKET_MS = 0.01;
const BUCKETS = 1_000_000;

export function createLatencyHistogram(): LatencyHistogram {
  const buckets = new Uint32Array(BUCKETS);
  let total = 0;
  let highest = 0;
  return {
    record(ms) {
      buckets[Math.min(BUCKETS - 1, Math.max(0, Math.floor(ms / BUCKET_MS)))]++;
      total++;
      if (ms > highest) highest = ms;
    },
    quantile(q) {
      if (total === 0) return NaN;
      const rank = Math.ceil(q * total);
      let seen = 0;
      for (let i = 0; i < BUCKETS; i++) {
        seen += buckets[i];
        if (seen >= rank) return (i + 1) * BUCKET_MS;
      }
      return highest;
    },
    max: () => highest,
    count: () => total,
  };
}
