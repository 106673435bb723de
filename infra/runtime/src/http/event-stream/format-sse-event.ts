import type { OutgoingHttpHeaders } from 'node:http';

/**
 * The headers of every event stream restbus answers: no-transform keeps compression middleware (and proxies) from
 * buffering the stream; X-Accel-Buffering: no keeps nginx from it.
 */
export const SSE_HEADERS: Readonly<OutgoingHttpHeaders> = Object.freeze({
  'content-type': 'text/event-stream; charset=utf-8',
  'cache-control': 'no-cache, no-transform',
  'x-accel-buffering': 'no',
});

/** A keep-alive: a comment line, which EventSource ignores, so that proxies do not close an idle stream. */
export const SSE_COMMENT = ':\n\n';

export interface OutgoingSseEvent {
  /** The SSE `id` (what EventSource sends back as Last-Event-ID on reconnecting), when the event has one. */
  id?: number | string;
  event: string;
  /** The event's data (JSON text in restbus). */
  data: string;
}

const LINE_BREAK = /\r\n|\r|\n/;

/** An event as Server-Sent Events text: `id: …\nevent: …\ndata: …\n\n`. */
export function formatSseEvent(event: OutgoingSseEvent): string {
  let text = event.id === undefined ? '' : `id: ${event.id}\n`;
  text += `event: ${event.event}\n`;
  // A data line cannot hold a line break: each line of the text is its own `data:` line (the client joins them).
  for (const line of event.data.split(LINE_BREAK)) text += `data: ${line}\n`;
  return `${text}\n`;
}
