import { get, type IncomingMessage } from 'node:http';

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
  let pending = '';
  res.setEncoding('utf8');
  res.on('data', (chunk: string) => {
    text += chunk;
    pending += chunk;
    let end: number;
    while ((end = pending.indexOf('\n\n')) >= 0) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let id: string | undefined;
      let event: string | undefined;
      const data: string[] = [];
      for (const line of block.split('\n')) {
        if (line.startsWith('id: ')) id = line.slice(4);
        else if (line.startsWith('event: ')) event = line.slice(7);
        else if (line.startsWith('data: ')) data.push(line.slice(6));
      }
      if (event) events.push({ id, event, data: JSON.parse(data.join('\n')), at: Date.now() });
    }
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
