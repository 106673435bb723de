/** One event of a `text/event-stream` as an EventSource sees it, its data as the text it came as. */
export interface SseBlock {
  id?: string;
  /** `message` unless the event names another. */
  event: string;
  /** The `data` lines, joined with line breaks. */
  data: string;
}

/**
 * A parser of a `text/event-stream` fed in chunks, as EventSource reads one: blocks end at a blank line (any line
 * break), `field: value` lines, comments (`:`) and blocks without data (`retry:`, keep-alives) are left out.
 * Returns the function that takes each chunk; `onEvent` hears each whole event.
 */
export function createSseParser(onEvent: (event: SseBlock) => void): (chunk: string) => void {
  let pending = '';
  // A chunk that ends in \r may be the first half of a \r\n: that \r waits for the next chunk.
  let carriage = '';
  return (chunk) => {
    pending += carriage + chunk;
    carriage = '';
    if (pending.endsWith('\r')) {
      carriage = '\r';
      pending = pending.slice(0, -1);
    }
    if (pending.includes('\r')) pending = pending.replace(/\r\n?/g, '\n');
    for (let end = pending.indexOf('\n\n'); end >= 0; end = pending.indexOf('\n\n')) {
      const block = pending.slice(0, end);
      pending = pending.slice(end + 2);
      let id: string | undefined;
      let event = 'message';
      let data: string | undefined;
      for (const line of block.split('\n')) {
        if (line === '' || line.startsWith(':')) continue;
        const colon = line.indexOf(':');
        const name = colon < 0 ? line : line.slice(0, colon);
        const value = colon < 0 ? '' : line.slice(colon + 1).replace(/^ /, '');
        if (name === 'data') data = data === undefined ? value : `${data}\n${value}`;
        else if (name === 'event') event = value;
        else if (name === 'id') id = value;
      }
      if (data !== undefined) onEvent({ ...(id !== undefined && { id }), event, data });
    }
  };
}
