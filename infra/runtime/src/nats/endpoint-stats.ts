import type { Service } from 'nats';

interface InternalStats {
  num_requests: number;
  processing_time: number;
  average_processing_time: number;
  countError(err: Error): void;
}

const isObjectLike = (value: unknown): value is object => typeof value === 'object' && value !== null;

function isInternalStats(value: unknown): value is InternalStats {
  return (
    isObjectLike(value) &&
    typeof Reflect.get(value, 'countError') === 'function' &&
    typeof Reflect.get(value, 'processing_time') === 'number' &&
    typeof Reflect.get(value, 'num_requests') === 'number'
  );
}

export interface EndpointStats {
  /** Counts an error reply (shown as num_errors and last_error by $SRV.STATS). */
  countError(err: Error): void;
  /** Adds the time an asynchronous handler took after the synchronous part nats.js measured. */
  addProcessingTime(ms: number): void;
}

/**
 * nats.js counts an endpoint's errors only when its handler throws synchronously, and its processing time only
 * up to the handler's return; an asynchronous handler would show no errors and no time. These reach its stats
 * object (internal in nats 2.x, hence the defensive lookup) so that $SRV.STATS tells the truth.
 */
export function findEndpointStats(service: Service, subject: string): EndpointStats | undefined {
  const handlers: unknown = Reflect.get(service, 'handlers');
  if (!Array.isArray(handlers)) return undefined;
  const handler: unknown = handlers.find(
    (one: unknown) => isObjectLike(one) && Reflect.get(one, 'subject') === subject,
  );
  const stats: unknown = isObjectLike(handler) ? Reflect.get(handler, 'stats') : undefined;
  if (!isInternalStats(stats)) return undefined;
  return {
    countError: (err) => stats.countError(err),
    addProcessingTime(ms) {
      stats.processing_time += Math.round(ms * 1_000_000);
      if (stats.num_requests > 0)
        stats.average_processing_time = Math.round(stats.processing_time / stats.num_requests);
    },
  };
}
