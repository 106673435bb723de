import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { formatSseEvent, readResumePoint, SSE_COMMENT, SSE_HEADERS } from '@restbus/infra';

export interface EventStreamTiming {
  /** Between two events (--event-interval). */
  intervalMs: number;
  /** Between keep-alive comments on a stream with nothing to send, so that proxies do not close it. */
  heartbeatMs: number;
}

export const DEFAULT_EVENT_INTERVAL_MS = 1000;
export const HEARTBEAT_MS = 15_000;
/** What a client that does not read may have waiting: past it the stream is cut rather than held in memory. */
const MOST_UNREAD_BYTES = 1024 * 1024;
/** How long EventSource waits before reconnecting after the stream ended. */
const RETRY_MS = 3000;

/** The events of a stream's mock file: a JSON array holds one event's data per item; any other JSON value is one. */
export function toMockEvents(jsonText: string): string[] {
  const value: unknown = JSON.parse(jsonText);
  return (Array.isArray(value) ? value : [value]).map((item) => JSON.stringify(item ?? null));
}

/**
 * Answers with Server-Sent Events: the events (data as JSON text) with ids 1, 2 … one every interval, after the one
 * a reconnecting client last saw (`Last-Event-ID`, or `?since=`), then keep-alive comments until the client leaves.
 * A resume point that is not an id is thrown (400) before anything is sent.
 */
export function answerEventStream(
  req: IncomingMessage,
  res: ServerResponse,
  stream: { status: number; headers: OutgoingHttpHeaders; events: readonly string[] },
  timing: EventStreamTiming = { intervalMs: DEFAULT_EVENT_INTERVAL_MS, heartbeatMs: HEARTBEAT_MS },
): void {
  const query = req.url?.includes('?') ? req.url.slice(req.url.indexOf('?') + 1) : '';
  const since = readResumePoint(req.headers, query) ?? 0;
  res.writeHead(stream.status, { ...stream.headers, ...SSE_HEADERS });
  if (req.method === 'HEAD') {
    res.end();
    return;
  }
  const { events } = stream;
  let next = Math.min(since, events.length);
  const write = (text: string): void => {
    // A client that stopped reading: cut, so that its unread events do not pile up.
    if (res.writableLength > MOST_UNREAD_BYTES) res.destroy();
    else res.write(text);
  };
  const sendNext = (): void => {
    if (next < events.length) write(formatSseEvent({ id: next + 1, event: 'message', data: events[next] }));
    next += 1;
    if (next >= events.length) clearInterval(eventTimer);
  };
  res.write(`retry: ${RETRY_MS}\n\n`);
  const eventTimer = setInterval(sendNext, timing.intervalMs);
  if (next < events.length) sendNext();
  else clearInterval(eventTimer);
  const heartbeat = setInterval(() => write(SSE_COMMENT), timing.heartbeatMs);
  res.once('close', () => {
    clearInterval(eventTimer);
    clearInterval(heartbeat);
  });
}
