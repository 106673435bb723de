import { setImmediate as yieldToLoop } from 'node:timers/promises';

/** How much JSON text is written between two turns of the event loop (some milliseconds of work). */
const CHUNK_CHARS = 256 * 1024;

/**
 * A list as JSON text, letting other requests in every CHUNK_CHARS of output: a full collection (thousands of items,
 * tens of megabytes) would otherwise hold the event loop for as long as JSON.stringify takes on all of it.
 */
export async function stringifyInChunks(items: readonly unknown[]): Promise<string> {
  const parts: string[] = [];
  let sinceYield = 0;
  for (const item of items) {
    const text = JSON.stringify(item) ?? 'null';
    parts.push(text);
    sinceYield += text.length;
    if (sinceYield >= CHUNK_CHARS) {
      sinceYield = 0;
      await yieldToLoop();
    }
  }
  return `[${parts.join(',')}]`;
}
