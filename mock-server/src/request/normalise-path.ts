import { RestbusError } from '@restbus/infra';

// RFC 3986 unreserved characters: their percent-encoding means the same as the character itself.
const UNRESERVED = /%(4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|2E|5F|7E)/gi;
// An encoded `/` or `\` inside a segment: fine in a parameter served here (`/users/a%2Fb`), but a remote may
// decode it into a separator and resolve a path no rule here looked at.
const ENCODED_SEPARATOR = /%(2F|5C)/i;

export interface NormalisedPath {
  path: string;
  /** Whether a segment holds an encoded `/` or `\`, or a backslash: such a path is never forwarded. */
  hasEncodedSeparator: boolean;
}

/**
 * A `%` must start an escape (`%ZZ`, a lone `%`) and the escapes must spell UTF-8 (`%C3` alone does not): a path
 * parameter or a file name could not be decoded, and a remote would guess.
 */
function assertWellEncoded(raw: string): void {
  try {
    decodeURIComponent(raw);
  } catch {
    throw new RestbusError('BAD_REQUEST', 'the path holds a malformed percent-encoding');
  }
}

/**
 * The one spelling of a request path that the login check, the proxy rules and exceptions, the services and the
 * static folders all match: percent-encoded unreserved characters decoded (`is%41live` is `isAlive`), repeated
 * slashes folded (`//isAlive` is `/isAlive`). Dot segments (`/rest/../admin`, `%2e%2e` too), an encoded NUL and a
 * malformed percent-encoding (`%ZZ`) are refused with 400: no client needs them, and forwarding them would let a
 * remote resolve a path no rule here looked at.
 */
export function normalisePath(raw: string): NormalisedPath {
  if (raw.includes('%')) {
    if (/%00/.test(raw)) throw new RestbusError('BAD_REQUEST', 'the path holds an encoded NUL');
    assertWellEncoded(raw);
  }
  const decoded = raw.includes('%') ? raw.replace(UNRESERVED, (escape) => decodeURIComponent(escape)) : raw;
  const path = decoded.includes('//') ? decoded.replace(/\/{2,}/g, '/') : decoded;
  if (/(^|\/)\.\.?(\/|$)/.test(path)) throw new RestbusError('BAD_REQUEST', 'the path holds a . or .. segment');
  return { path, hasEncodedSeparator: path.includes('\\') || ENCODED_SEPARATOR.test(path) };
}
