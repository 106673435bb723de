import { get, type IncomingMessage } from 'node:http';
import { createSseParser } from '@restbus/infra/testing';

export interface SseEvent {
  id?: string;
  event: string;
  /** The data lines joined, read as JSON (as the gateway sends every event's data). */
  data: unknown;
  /** When it arrived (Date.now()). */
  at: number;
}

export interface SseReader {
  res: IncomingMessage;
  /** The events parsed so far (comments and `retry:` left out). */
  events: SseEvent[];
  /** Everything received so far, as text: the body of an answer that is no stream, the comments of one that is. */
  text(): string;
}

/** An SSE client as a browser's EventSource is: `Accept: text/event-stream`, and `Last-Event-ID` when resuming. */
export async function openSse(url: string, headers: Record<string, string> = {}): Promise<SseReader> {
  const res = await new Promise<IncomingMessage>((done, fail) =>
    get(url, { headers: { accept: 'text/event-stream', ...headers } }, done).once('error', fail),
  );
  const events: SseEvent[] = [];
  let text = '';
  const parse = createSseParser(({ data, ...event }) =>
    events.push({ ...event, data: JSON.parse(data) as unknown, at: Date.now() }),
  );
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
    parse(chunk);
  });
  res.on('error', () => undefined);
  return { res, events, text: () => text };
}

export async function waitFor(check: () => boolean, what: string, ms = 10_000): Promise<void> {
  const deadline = Date.now() + ms;
  while (!check()) {
    if (Date.now() > deadline) throw new Error(`timed out after ${ms} ms waiting for ${what}`);
    await new Promise((done) => setTimeout(done, 20));
  }
}
