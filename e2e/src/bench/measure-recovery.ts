import { summarizeLoad, toTimeline, type Outcome } from '../cluster-load';

export interface Recovery {
  /** p99 of the requests sent before the fault, ms. */
  beforeP99: number;
  /**
   * Ms from the fault to the start of the first second from which every second to the end of the run had no error and
   * a p99 under twice `beforeP99`; 0 when the fault never showed; undefined when the run ended before that.
   */
  recoveredAfterMs?: number;
  /** Ms from the fault to the start of the first such second after it, whatever came later; undefined if none. */
  firstHealthyAfterMs?: number;
}

/** How long a fault hurt, read from the per-second timeline of a load run around it. */
export function measureRecovery(outcomes: readonly Outcome[], faultAt: number): Recovery {
  const beforeP99 = summarizeLoad(outcomes.filter((outcome) => outcome.at < faultAt)).p99;
  const timeline = toTimeline(outcomes);
  const healthy = (row: (typeof timeline)[number]): boolean => row.errors === 0 && row.p99 < 2 * beforeP99;
  const faultSecond = Math.floor(faultAt / 1000);
  const after = timeline.filter((row) => row.second >= faultSecond);
  const since = (second: number | undefined): number | undefined =>
    second === undefined ? undefined : Math.max(0, second * 1000 - faultAt);
  let healthySince: number | undefined;
  for (const row of after) {
    if (!healthy(row)) healthySince = undefined;
    else healthySince ??= row.second;
  }
  const recoveredAfterMs = since(healthySince);
  const firstHealthyAfterMs = since(after.find(healthy)?.second);
  return {
    beforeP99,
    ...(recoveredAfterMs === undefined ? {} : { recoveredAfterMs }),
    ...(firstHealthyAfterMs === undefined ? {} : { firstHealthyAfterMs }),
  };
}
