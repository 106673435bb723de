import { createSseParser } from './parse-sse';
/** One event of a `text/event-stream`, as a client sees it. */
export interface SseEvent {
  id?: string;
  event: string;
  /** The `data` lines, joined, read as JSON when they are JSON. */
  data: unknown;
}

export interface ReadSseOptions {
  /** How many events (with `data`) to wait for; the stream is closed after them. */
  count: number;
  headers?: Record<string, string>;
  /** Runs once the stream is open (its 200 and headers are in): the writes whose events the test waits for. */
  during?: () => Promise<void>;
  /** Gives up (and answers what came) after this long; 10 s by default. */
  timeoutMs?: number;
}

/** An event's data as JSON where it is JSON (the gateway's always are), else the text. */
function readData(text: string): unknown {
  try {
    return JSON.parse(text) as unknown;
  } catch {
    return text;
  }
}

/**
 * Opens a GET on an event stream as a browser's EventSource would (with fetch), expects a 200 `text/event-stream`,
 * runs `during`, and reads events until `count` have come: then closes the stream.
 */
export async function readSseEvents(url: string, options: ReadSseOptions): Promise<SseEvent[]> {
  const abort = new AbortController();
  const timer = setTimeout(() => abort.abort(), options.timeoutMs ?? 10_000);
  const events: SseEvent[] = [];
  try {
    const response = await fetch(url, { headers: options.headers, signal: abort.signal });
    const type = response.headers.get('content-type') ?? '';
    if (response.status !== 200 || !type.startsWith('text/event-stream')) {
      throw new Error(`${url} answered ${response.status} ${type}: ${await response.text()}`);
    }
    const reader = response.body!.pipeThrough(new TextDecoderStream()).getReader();
    await options.during?.();
    const parse = createSseParser(({ data, ...event }) => events.push({ ...event, data: readData(data) }));
    while (events.length < options.count) {
      const { value, done } = await reader.read().catch(() => ({ value: undefined, done: true as const }));
      if (done) break;
      parse(value);
    }
    return events;
  } finally {
    clearTimeout(timer);
    abort.abort();
  }
}
