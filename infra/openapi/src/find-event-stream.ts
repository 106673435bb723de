import type { ApiMedia, ApiResponse } from './api-model';

const EVENT_STREAM = 'text/event-stream';

/** The `text/event-stream` media of the first 2xx response that has one (`2XX` included, type in any case). */
export function findEventStream(responses: readonly ApiResponse[]): ApiMedia | undefined {
  for (const response of responses) {
    if (!/^2(\d\d|XX)$/.test(response.status)) continue;
    const found = Object.entries(response.content).find(
      ([type]) => type.split(';')[0].trim().toLowerCase() === EVENT_STREAM,
    );
    if (found) return found[1];
  }
  return undefined;
}
