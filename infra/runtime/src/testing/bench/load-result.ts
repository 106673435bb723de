/** What one load run measured. Latencies in milliseconds. */
export interface LoadResult {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  requests: number;
}

export function summarize(latenciesMs: number[], seconds: number): LoadResult {
  const sorted = [...latenciesMs].sort((a, b) => a - b);
  const at = (q: number): number => sorted[Math.min(sorted.length - 1, Math.floor(q * sorted.length))] ?? NaN;
  return { requestsPerSecond: sorted.length / seconds, p50: at(0.5), p99: at(0.99), requests: sorted.length };
}

export function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}
