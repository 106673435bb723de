import { RestbusError } from '@restbus/infra';

// RFC 3986 unreserved characters: their percent-encoding means the same as the character itself.
const UNRESERVED = /%(4[1-9A-F]|5[0-9A]|6[1-9A-F]|7[0-9A]|3[0-9]|2D|2E|5F|7E)/gi;
// An encoded `/`, `\` or NUL would let a path mean one thing here and another on a remote or a file system.
const ENCODED_SEPARATOR = /%(2F|5C|00)/i;

/**
 * The one spelling of a request path that the login check, the proxy rules and exceptions, the services and the
 * static folders all match: percent-encoded unreserved characters decoded (`is%41live` is `isAlive`), repeated
 * slashes folded (`//isAlive` is `/isAlive`). Dot segments (`/rest/../admin`, `%2e%2e` too) and encoded separators
 * (`%2f`, `%5c`, `%00`) or a backslash are refused with 400: no client needs them, and forwarding them would let a
 * remote resolve a path no rule here looked at.
 */
export function normalisePath(path: string): string {
  if (path.includes('\\') || ENCODED_SEPARATOR.test(path)) {
    throw new RestbusError('BAD_REQUEST', 'the path holds an encoded separator or a backslash');
  }
  const decoded = path.includes('%') ? path.replace(UNRESERVED, (escape) => decodeURIComponent(escape)) : path;
  const folded = decoded.includes('//') ? decoded.replace(/\/{2,}/g, '/') : decoded;
  if (/(^|\/)\.\.?(\/|$)/.test(folded)) throw new RestbusError('BAD_REQUEST', 'the path holds a . or .. segment');
  return folded;
}
