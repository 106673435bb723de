import type { Sample } from './read-samples';

/** A fault of the soak: from its start until the cluster had settled again after it, in minutes. */
export interface FaultWindow {
  label: string;
  from: number;
  to: number;
  /** The processes the fault restarted (their memory starts afresh, so their growth across it says nothing). */
  restarted?: string[];
}

/** One request of the soak: when it was sent (minutes), what came back (0: no answer) and how long it took. */
export interface SoakOutcome {
  minute: number;
  status: number;
  retryAfter: boolean;
  /** How long the answer took; a call is in a fault window when it was in flight during it. */
  ms?: number;
}

export type SampledMetric = 'rss' | 'heap' | 'heapLive' | 'heapTotal' | 'external' | 'handles' | 'subscriptions';

export interface Growth {
  process: string;
  metric: SampledMetric;
  /**
   * The first and the last minute's samples outside the fault windows, from `fromMinute` on: their median; for heap
   * in use the lowest of the first and the last 5 minutes'.
   */
  start: number;
  end: number;
  /** (end - start) / start, in %. */
  percent: number;
  /** A fault restarted the process between the two ends. */
  restarted: boolean;
}

/** Calls and failed calls of a stretch of the soak; failures by status (0: no answer). */
export interface CallCounts {
  calls: number;
  failed: number;
  statuses: Record<string, number>;
  /** The 99th percentile of the calls' times, ms (0 without calls). */
  p99Ms: number;
}

/** A fault window's calls: those in flight at any time during it. */
export interface WindowCounts extends CallCounts {
  label: string;
  from: number;
  to: number;
  /** Failed calls whose answer carried Retry-After. */
  withRetryAfter: number;
}

/** The replica lag of the KV stream: its highest sample, and each node's last. */
export interface KvLag {
  max: number;
  process?: string;
  minute?: number;
  atEnd: Record<string, number>;
}

export interface SoakSummary {
  requests: number;
  errors: number;
  /** Failures of calls outside every fault window: the soak's bar is none. */
  errorsOutsideFaults: number;
  /** Failures in fault windows that were not a 503 with Retry-After. */
  faultErrorsWithoutRetryAfter: number;
  /** The calls outside every fault window. */
  outside: CallCounts;
  windows: WindowCounts[];
  growth: Growth[];
  kvLag: KvLag;
}

/** Anything but 2xx: the soak only reads persons it wrote and writes new ones, so even a 404 is a failure. */
const isError = (outcome: SoakOutcome): boolean => outcome.status < 200 || outcome.status >= 300;

/** How far each end of the run the heap's floor is looked for (see summariseSoak). */
const HEAP_FLOOR_MINUTES = 5;

function median(values: number[]): number {
  const sorted = [...values].sort((a, b) => a - b);
  const middle = Math.floor(sorted.length / 2);
  return sorted.length % 2 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2;
}

function summariseKvLag(samples: readonly Sample[]): KvLag {
  const lagged = samples.filter((sample) => sample.kvLag !== undefined);
  const highest = lagged.reduce<Sample | undefined>(
    (top, sample) => (top && top.kvLag! >= sample.kvLag! ? top : sample),
    undefined,
  );
  const atEnd: Record<string, number> = {};
  for (const sample of lagged) atEnd[sample.process] = sample.kvLag!;
  return { max: highest?.kvLag ?? 0, process: highest?.process, minute: highest?.minute, atEnd };
}

function countCalls(outcomes: readonly SoakOutcome[]): CallCounts {
  const statuses: Record<string, number> = {};
  const failed = outcomes.filter(isError);
  for (const outcome of failed) statuses[outcome.status] = (statuses[outcome.status] ?? 0) + 1;
  const times = outcomes.map((outcome) => outcome.ms ?? 0).sort((a, b) => a - b);
  const p99Ms = times.length ? times[Math.min(times.length - 1, Math.floor(0.99 * times.length))] : 0;
  return { calls: outcomes.length, failed: failed.length, statuses, p99Ms };
}

/**
 * What the soak shows: the calls of each fault window and those outside them, and each process's growth of each
 * sampled metric from `fromMinute` (after the warm-up: caches, JIT, the first connections) to the end, outside the
 * fault windows, one minute's median at each end (heap: its lowest over 5 minutes) so that one sample does not decide.
 */
export function summariseSoak(
  outcomes: readonly SoakOutcome[],
  samples: readonly Sample[],
  faults: readonly FaultWindow[],
  fromMinute = 5,
): SoakSummary {
  // In flight at any time of the window: a call sent just before a kill and failed by it is the fault's.
  const during = (outcome: SoakOutcome, fault: FaultWindow): boolean =>
    outcome.minute <= fault.to && outcome.minute + (outcome.ms ?? 0) / 60_000 >= fault.from;
  const inFault = (outcome: SoakOutcome): boolean => faults.some((fault) => during(outcome, fault));
  const errors = outcomes.filter(isError);
  const lastMinute = Math.max(0, ...samples.map((sample) => sample.minute));
  // Memory is compared where the cluster is whole: a sample in a fault window sees clients moving between nodes.
  const quiet = samples.filter(
    (sample) => sample.minute >= fromMinute && !faults.some((f) => sample.minute >= f.from && sample.minute <= f.to),
  );
  const growth: Growth[] = [];
  const processes = [...new Set(samples.map((sample) => sample.process))].sort();
  for (const process of processes) {
    const restarted = faults.some(
      (fault) => fault.restarted?.includes(process) && fault.to >= fromMinute && fault.from <= lastMinute,
    );
    for (const metric of ['rss', 'heap', 'heapLive', 'heapTotal', 'external', 'handles', 'subscriptions'] as const) {
      const own = quiet.filter((sample) => sample.process === process && sample[metric] !== undefined);
      if (own.length < 2) continue;
      const valuesIn = (from: number, to: number): number[] =>
        own.filter((sample) => sample.minute >= from && sample.minute < to).map((sample) => sample[metric]!);
      const firstMinute = own[0].minute;
      const lastOwn = own[own.length - 1].minute;
      if (lastOwn - firstMinute < 2) continue;
      // Heap in use climbs with garbage until a full collection, every few minutes under the soak's load (seen: 3-5
      // in the gateways): its lowest sample over HEAP_FLOOR_MINUTES at each end comes nearest the live data, which
      // heapLive (taken just after each full collection) is. Other metrics: the median of a minute at each end.
      const span = metric === 'heap' ? Math.min(HEAP_FLOOR_MINUTES, (lastOwn - firstMinute) / 2) : 1;
      const measure = metric === 'heap' ? (values: number[]) => Math.min(...values) : median;
      const start = measure(valuesIn(firstMinute, firstMinute + span));
      const end = measure(valuesIn(lastOwn - span, lastOwn + 1));
      const percent = start === 0 ? 0 : ((end - start) / start) * 100;
      growth.push({ process, metric, start, end, percent, restarted });
    }
  }
  return {
    requests: outcomes.length,
    errors: errors.length,
    errorsOutsideFaults: errors.filter((outcome) => !inFault(outcome)).length,
    faultErrorsWithoutRetryAfter: errors.filter(
      (outcome) => inFault(outcome) && !(outcome.status === 503 && outcome.retryAfter),
    ).length,
    outside: countCalls(outcomes.filter((outcome) => !inFault(outcome))),
    windows: faults.map((fault) => {
      const calls = outcomes.filter((outcome) => during(outcome, fault));
      return {
        label: fault.label,
        from: fault.from,
        to: fault.to,
        ...countCalls(calls),
        withRetryAfter: calls.filter((outcome) => isError(outcome) && outcome.retryAfter).length,
      };
    }),
    growth,
    kvLag: summariseKvLag(samples),
  };
}
