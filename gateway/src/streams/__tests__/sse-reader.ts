import { get, type IncomingMessage } from 'node:http';
import { createSseParser, waitFor as waitUntil } from '@restbus/infra/testing';

export interface SseEvent {
  id?: string;
  event: string;
  /** The data lines joined, read as JSON (as the gateway sends every event's data). */
  data: unknown;
  /**
   * The reader's `mark()` when the event arrived: a logical clock of the test's own (how many events it had published
   * by then, say), never a time read. 0 without one.
   */
  mark: number;
}

export interface SseReader {
  res: IncomingMessage;
  /** The events parsed so far (comments and `retry:` left out). */
  events: SseEvent[];
  /** Everything received so far, as text: the body of an answer that is no stream, the comments of one that is. */
  text(): string;
}

export interface SseReaderOptions {
  /** Read as each event arrives, and kept on it as `mark`. */
  mark?: () => number;
}

/** An SSE client as a browser's EventSource is: `Accept: text/event-stream`, and `Last-Event-ID` when resuming. */
export async function openSse(
  url: string,
  headers: Record<string, string> = {},
  { mark = () => 0 }: SseReaderOptions = {},
): Promise<SseReader> {
  const res = await new Promise<IncomingMessage>((done, fail) =>
    get(url, { headers: { accept: 'text/event-stream', ...headers } }, done).once('error', fail),
  );
  const events: SseEvent[] = [];
  let text = '';
  const parse = createSseParser(({ data, ...event }) =>
    events.push({ ...event, data: JSON.parse(data) as unknown, mark: mark() }),
  );
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
    parse(chunk);
  });
  res.on('error', () => undefined);
  return { res, events, text: () => text };
}

/** Resolves once `check` holds; rejects after `ms` (a timer, not a clock read: see waitFor in @restbus/infra/testing). */
export function waitFor(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  return waitUntil(check, { what, timeoutMs: ms });
}
