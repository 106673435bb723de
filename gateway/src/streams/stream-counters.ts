/**
 * Why a client's WebSocket was closed for what it sent (ws's close code): frames that break the protocol (1002),
 * text that is not UTF-8 (1007), more fragments or chunks than ws buffers (1008), a frame past the limit (1009).
 */
export type ProtocolErrorKind = 'protocol' | 'invalid_utf8' | 'too_many_parts' | 'too_big';

export const PROTOCOL_ERROR_KINDS: readonly ProtocolErrorKind[] = [
  'protocol',
  'invalid_utf8',
  'too_many_parts',
  'too_big',
];

/** What the streams count, read by /-/metrics (bindStreamMetrics): plain numbers, as events are many. */
export interface StreamCountsSnapshot {
  openStreams: number;
  eventsSent: number;
  gaps: number;
  cuts: number;
  refused: number;
  /** WebSocket clients closed for a protocol error, by kind. */
  protocolErrors: Record<ProtocolErrorKind, number>;
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
  /** One WebSocket client closed for a protocol error. */
  protocolError(kind: ProtocolErrorKind): void;
  snapshot(): StreamCountsSnapshot;
}

/**
 * The counters of one gateway's streams. Events sent count once per client per event (a million a second under
 * load): a number incremented here, read by prometheus when it scrapes, costs less than a prom-client counter.
 */
export function createStreamCounters(): StreamCounters {
  const protocolErrors: Record<ProtocolErrorKind, number> = {
    protocol: 0,
    invalid_utf8: 0,
    too_many_parts: 0,
    too_big: 0,
  };
  const counts: StreamCountsSnapshot = { openStreams: 0, eventsSent: 0, gaps: 0, cuts: 0, refused: 0, protocolErrors };
  return {
    opened: () => void counts.openStreams++,
    closed: () => void counts.openStreams--,
    sent: () => void counts.eventsSent++,
    gap: () => void counts.gaps++,
    cut: () => void counts.cuts++,
    refused: () => void counts.refused++,
    protocolError: (kind) => void protocolErrors[kind]++,
    snapshot: () => ({ ...counts, protocolErrors: { ...protocolErrors } }),
  };
}
