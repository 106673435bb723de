/** What a 503 asks the client to wait, in seconds: about how long a NATS node's loss or a leader election takes. */
export const RETRY_AFTER_SECONDS = '2';

/**
 * The headers of an error answer with `Retry-After` added to a 503 that names none: a 503 is a moment's
 * unavailability (no responder, the bus or the store moving), so clients and load balancers should back off rather
 * than give up (RFC 9110 §10.2.3). The one rule for the gateway's and the mock server's answers and the services'
 * replies alike.
 */
export function withRetryAfter<T extends Record<string, unknown>>(status: number, headers: T | undefined): T {
  const given = headers ?? ({} as T);
  if (status !== 503 || Object.keys(given).some((key) => key.toLowerCase() === 'retry-after')) return given;
  return { ...given, 'retry-after': RETRY_AFTER_SECONDS };
}
