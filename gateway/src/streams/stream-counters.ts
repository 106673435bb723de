/** What the streams count, read by /-/metrics (bindStreamMetrics): plain numbers, as events are many. */
export interface StreamCountsSnapshot {
  openStreams: number;
  eventsSent: number;
  gaps: number;
  cuts: number;
  refused: number;
}

export interface StreamCounters {
  opened(): void;
  closed(): void;
  /** One event written to one client. */
  sent(): void;
  /** One gap event given to a client that missed events. */
  gap(): void;
  /** One client cut at its queue's bound. */
  cut(): void;
  /** One stream refused: the maximum of open streams was reached. */
  refused(): void;
  snapshot(): StreamCountsSnapshot;
}

/**
 * The counters of one gateway's streams. Events sent count once per client per event (a million a second under
 * load): a number incremented here, read by prometheus when it scrapes, costs less than a prom-client counter.
 */
export function createStreamCounters(): StreamCounters {
  const counts: StreamCountsSnapshot = { openStreams: 0, eventsSent: 0, gaps: 0, cuts: 0, refused: 0 };
  return {
    opened: () => void counts.openStreams++,
    closed: () => void counts.openStreams--,
    sent: () => void counts.eventsSent++,
    gap: () => void counts.gaps++,
    cut: () => void counts.cuts++,
    refused: () => void counts.refused++,
    snapshot: () => ({ ...counts }),
  };
}
