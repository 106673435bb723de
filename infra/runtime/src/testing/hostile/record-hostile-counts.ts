import { appendFileSync } from 'node:fs';

/** What one hostile suite tried and what it found; every `found` count is expected to be zero. */
export interface HostileCounts {
  /** e.g. `{ requests: 600 }`, `{ files: 40 }`, `{ replies: 60 }`. */
  tried: Record<string, number>;
  /** e.g. `{ crashes: 0, disconnects: 0, leaks: 0 }`. */
  found: Record<string, number>;
}

/**
 * Records a hostile suite's counts for the run's closing summary (infra/jest/summary-reporter.js prints them).
 * The file is named by RESTBUS_HOSTILE_LOG, which the jest global setup sets; outside jest this does nothing.
 */
export function recordHostileCounts(suite: string, counts: HostileCounts): void {
  const file = process.env.RESTBUS_HOSTILE_LOG;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ suite, ...counts })}\n`);
}
