import { RestbusError } from '../errors/restbus-error';

/**
 * The longest id a collection takes, in bytes of UTF-8. An id becomes part of a NATS subject (a KV key), and a
 * subject past the server's 4096-byte control line makes the server close the whole connection, failing every
 * request in flight on it; 512 leaves ample room for the bucket's prefix.
 */
export const MAX_ID_BYTES = 512;

// In a `u` regular expression a surrogate only matches when it is not half of a pair: a lone one.
const LONE_SURROGATE = /\p{Surrogate}/u;

/**
 * Says what is wrong with an id, or `undefined` when a collection can store it. A lone surrogate cannot be
 * encoded (encodeURIComponent throws) and becomes U+FFFD in UTF-8, so two different ids would share one key.
 */
export function describeInvalidId(id: unknown): string | undefined {
  // A request message can lack the path parameter altogether; an empty key is not one NATS KV can look up.
  if (typeof id !== 'string' || id === '') return 'an id must be a non-empty string';
  if (LONE_SURROGATE.test(id)) return 'an id must be well-formed Unicode text (it has a lone surrogate)';
  const bytes = Buffer.byteLength(id, 'utf8');
  if (bytes > MAX_ID_BYTES) return `an id is at most ${MAX_ID_BYTES} bytes of UTF-8 (this one has ${bytes})`;
  return undefined;
}

/** Throws `REQUEST_INVALID` (400) for an id no collection takes: every store enforces one rule. */
export function assertValidId(id: unknown): string {
  const problem = describeInvalidId(id);
  if (problem || typeof id !== 'string') throw new RestbusError('REQUEST_INVALID', problem ?? 'an id must be a string');
  return id;
}
