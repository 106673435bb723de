import { formatSseEvent } from '@restbus/infra';
/**
 * One event of a stream, shared by every client that gets it: its encoded forms (SSE text, WebSocket frame) are
 * made once, on first use, and the same Buffer is written to every client (no per-client copy).
 */
export interface StreamEvent {
  /** The JetStream stream sequence, when the stream keeps its events; the SSE `id` and the frame's `id`. */
  readonly seq?: number;
  /** The SSE event name: `message` for the service's events; `reset` and `gap` are the gateway's own. */
  readonly event: string;
  /** JSON text. */
  readonly data: string;
  /** `id: …\nevent: …\ndata: …\n\n`, made once. */
  sse(): Buffer;
  /** `{"id":"…","event":"…","data":…}`, made once. */
  ws(): Buffer;
}

export type StreamEventInit =
  | { event: string; seq?: number; data: string }
  /** A message's payload: kept as it is when it is JSON, else made a JSON string (empty: `null`). */
  | { event: string; seq?: number; payload: Uint8Array };

/** JSON text for a payload: as sent when it parses, else the text as a JSON string, so every event's data is JSON. */
function toJsonText(payload: Uint8Array): string {
  const text = Buffer.from(payload.buffer, payload.byteOffset, payload.byteLength).toString('utf8');
  if (text.trim() === '') return 'null';
  try {
    JSON.parse(text);
    return text;
  } catch {
    return JSON.stringify(text);
  }
}

class SharedStreamEvent implements StreamEvent {
  private sseText?: Buffer;
  private frame?: Buffer;

  constructor(
    readonly event: string,
    readonly data: string,
    readonly seq?: number,
  ) {}

  sse(): Buffer {
    if (!this.sseText) {
      this.sseText = Buffer.from(formatSseEvent({ id: this.seq, event: this.event, data: this.data }));
    }
    return this.sseText;
  }

  ws(): Buffer {
    if (!this.frame) {
      // The data is JSON text already: spliced in, never parsed and stringified again.
      const id = this.seq === undefined ? '' : `"id":"${this.seq}",`;
      this.frame = Buffer.from(`{${id}"event":${JSON.stringify(this.event)},"data":${this.data}}`);
    }
    return this.frame;
  }
}

export function createStreamEvent(init: StreamEventInit): StreamEvent {
  const data = 'payload' in init ? toJsonText(init.payload) : init.data;
  return new SharedStreamEvent(init.event, data, init.seq);
}

/** The gateway's `gap` event: how many events a client missed at its bound, and their ids when they had some. */
export function createGapEvent(missed: number, firstMissed?: number, lastMissed?: number): StreamEvent {
  const body: Record<string, unknown> = { missed };
  if (firstMissed !== undefined) body.firstMissedId = String(firstMissed);
  if (lastMissed !== undefined) body.lastMissedId = String(lastMissed);
  return createStreamEvent({ event: 'gap', data: JSON.stringify(body) });
}

/** The gateway's `reset` event: the client's ids are of a stream that is gone, or expired; `body` says which. */
export function createResetEvent(body: Record<string, unknown>): StreamEvent {
  return createStreamEvent({ event: 'reset', data: JSON.stringify(body) });
}
