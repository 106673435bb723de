import type { Sample } from './read-samples';

/** A fault of the soak: from the kill until the node was healthy again and the cluster had settled, in minutes. */
export interface FaultWindow {
  label: string;
  from: number;
  to: number;
}

/** One request of the soak: when it was sent (minutes) and what came back (0: no answer). */
export interface SoakOutcome {
  minute: number;
  status: number;
  retryAfter: boolean;
}

export type SampledMetric = 'rss' | 'heap' | 'handles' | 'subscriptions';

export interface Growth {
  process: string;
  metric: SampledMetric;
  /** The median of the samples in the minute from `fromMinute`, and of the last minute's. */
  start: number;
  end: number;
  /** (end - start) / start, in %. */
  percent: number;
}

export interface SoakSummary {
  requests: number;
  errors: number;
  /** Failures sent outside every fault window: the soak's bar is none. */
  errorsOutsideFaults: number;
  /** Failures in fault windows that were not a 503 with Retry-After. */
  faultErrorsWithoutRetryAfter: number;
  growth: Growth[];
}

const isError = (outcome: SoakOutcome): boolean => outcome.status === 0 || outcome.status >= 500;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

/**
 * What the soak shows: errors outside the fault windows, and each process's growth of each sampled metric from
 * `fromMinute` (after the warm-up: caches, JIT, the first connections) to the end, one minute's median at each end
 * so that one sample taken during a collection does not decide.
 */
export function summariseSoak(
  outcomes: readonly SoakOutcome[],
  samples: readonly Sample[],
  faults: readonly FaultWindow[],
  fromMinute = 5,
): SoakSummary {
  const inFault = (minute: number): boolean => faults.some((fault) => minute >= fault.from && minute <= fault.to);
  const errors = outcomes.filter(isError);
  const lastMinute = Math.max(0, ...samples.map((sample) => sample.minute));
  const growth: Growth[] = [];
  const processes = [...new Set(samples.map((sample) => sample.process))];
  for (const process of processes) {
    for (const metric of ['rss', 'heap', 'handles', 'subscriptions'] as const) {
      const valuesIn = (from: number, to: number): number[] =>
        samples
          .filter((sample) => sample.process === process && sample.minute >= from && sample.minute < to)
          .map((sample) => sample[metric])
          .filter((value): value is number => value !== undefined);
      const first = valuesIn(fromMinute, fromMinute + 1);
      const last = valuesIn(lastMinute - 1, lastMinute + 1);
      if (!first.length || !last.length) continue;
      const start = median(first);
      const end = median(last);
      growth.push({ process, metric, start, end, percent: start === 0 ? 0 : ((end - start) / start) * 100 });
    }
  }
  return {
    requests: outcomes.length,
    errors: errors.length,
    errorsOutsideFaults: errors.filter((outcome) => !inFault(outcome.minute)).length,
    faultErrorsWithoutRetryAfter: errors.filter(
      (outcome) => inFault(outcome.minute) && !(outcome.status === 503 && outcome.retryAfter),
    ).length,
    growth,
  };
}
