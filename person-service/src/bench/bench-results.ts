import { median, type LoadResult } from '@restbus/infra/testing';

/** Medians over rounds: the figures, and each round's ratio to the reference measured in that same round. */
export interface BenchSummary {
  requestsPerSecond: number;
  p50: number;
  p99: number;
  throughputRatio: number;
  p50Ratio: number;
  p99Ratio: number;
}

export interface BenchResults {
  record(name: string, connections: number, result: LoadResult): void;
  summarize(name: string, connections: number): BenchSummary;
}

/**
 * Collects one result per scenario, connection count and round. Ratios are taken round by round, not between
 * medians, so that a spell of load from elsewhere on the machine weighs on a target and its reference alike.
 */
export function createBenchResults(reference: string): BenchResults {
  const runs = new Map<string, LoadResult[]>();
  const runsOf = (name: string, connections: number): LoadResult[] => runs.get(`${name}|${connections}`) ?? [];
  return {
    record(name, connections, result) {
      runs.set(`${name}|${connections}`, [...runsOf(name, connections), result]);
    },
    summarize(name, connections) {
      const list = runsOf(name, connections);
      const references = runsOf(reference, connections);
      const middle = (pick: (r: LoadResult) => number): number => median(list.map(pick));
      const ratio = (pick: (r: LoadResult) => number): number =>
        median(list.map((r, round) => pick(r) / (references[round] ? pick(references[round]) : NaN)));
      return {
        requestsPerSecond: middle((r) => r.requestsPerSecond),
        p50: middle((r) => r.p50),
        p99: middle((r) => r.p99),
        throughputRatio: ratio((r) => r.requestsPerSecond),
        p50Ratio: ratio((r) => r.p50),
        p99Ratio: ratio((r) => r.p99),
      };
    },
  };
}
