import type { IncomingHttpHeaders } from 'node:http';
import { parse as parseCookies } from 'cookie';
import type { ApiSecurityScheme } from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { quoteHeaderValue } from './scheme-check';

/** What a request carries that credentials can be in. */
export interface Credentials {
  headers: IncomingHttpHeaders;
  /** The query string without its `?`. */
  query: string;
}

/** An HTTP token (RFC 9110 §5.6.2): what a header name and an authentication scheme must be. */
const TOKEN = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

/** A scheme the mock can check: where its credentials go, and the challenge that asks for them. */
type Check =
  { kind: 'apiKey'; in: 'header' | 'query' | 'cookie'; name: string } | { kind: 'authorization'; scheme: string };

/**
 * What the mock checks for a declared scheme, or undefined when there is nothing it can check: an unknown type (and
 * mutualTLS), an API key without a name or in a place it cannot be (`in: path`, a header name that is no token), an
 * `http` scheme whose name is no token. Such a scheme is let through, as a scheme the request cannot satisfy would
 * refuse every call; the load's linter warns about it. An API key with no `in` is looked for in a header, as the
 * gateway always read it (the model gives `in` as written).
 */
function toCheck(scheme: ApiSecurityScheme): Check | undefined {
  const { type, name } = scheme;
  if (type === 'apiKey') {
    if (name === undefined || name === '') return undefined;
    const where = scheme.in ?? 'header';
    if (where === 'header' && TOKEN.test(name)) return { kind: 'apiKey', in: 'header', name };
    if (where === 'query' || where === 'cookie') return { kind: 'apiKey', in: where, name };
    return undefined;
  }
  if (type === 'http') {
    const written = scheme.scheme ?? 'bearer';
    return TOKEN.test(written) ? { kind: 'authorization', scheme: written } : undefined;
  }
  if (type === 'basic') return { kind: 'authorization', scheme: 'basic' }; // Swagger 2.0
  if (type === 'oauth2' || type === 'openIdConnect') return { kind: 'authorization', scheme: 'bearer' };
  return undefined;
}

/**
 * Base64 as RFC 7617 asks of Basic credentials (RFC 4648 §4's alphabet; the padding may be left out, as Prism and
 * most servers allow): linear, whatever the length.
 */
const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}(?:==)?|[A-Za-z0-9+/]{3}=?)?$/;

/**
 * Whether Basic credentials are `base64(user-id:password)` (RFC 7617 §2): what a Basic client sends. Anything else
 * is no credentials at all, and is answered as none are; the user and password themselves are not checked.
 */
function isBasicCredentials(credentials: string): boolean {
  return credentials !== '' && BASE64.test(credentials) && Buffer.from(credentials, 'base64').includes(0x3a);
}

/** The request's credentials, each place read once and only when a scheme looks there. */
function readCredentials({ headers, query }: Credentials) {
  let queryNames: URLSearchParams | undefined;
  let cookieNames: Set<string> | undefined;
  const written = String(headers.authorization ?? '');
  const authorization = written.toLowerCase();
  const isScheme = (scheme: string) =>
    authorization.startsWith(`${scheme.toLowerCase()} `) && authorization.trim().length > scheme.length;
  return {
    // Own properties only: `__proto__` or `constructor` is a name like any other.
    header: (name: string) => Object.hasOwn(headers, name.toLowerCase()),
    query: (name: string) => (queryNames ??= new URLSearchParams(query)).has(name),
    cookie: (name: string) =>
      (cookieNames ??= new Set(Object.keys(parseCookies(String(headers.cookie ?? ''))))).has(name),
    authorization: (scheme: string) =>
      isScheme(scheme) && (scheme.toLowerCase() !== 'basic' || isBasicCredentials(written.slice(scheme.length).trim())),
  };
}

/** A name from the document as a challenge quotes it: 128 characters at most, as the mock always wrote them. */
const quote = (text: string): string => quoteHeaderValue(text, 128);

/** The `WWW-Authenticate` challenge of a scheme (RFC 9110 §11.6.1); an API key's names where it goes. */
function challengeOf(check: Check): string {
  if (check.kind === 'apiKey') return `ApiKey in=${quote(check.in)}, name=${quote(check.name)}`;
  const name = check.scheme.toLowerCase();
  return `${name[0].toUpperCase()}${name.slice(1)} realm="restbus"`;
}

/**
 * The challenges to answer `401` with when no security requirement of the operation (its own `security`, else
 * the document's) has all of its credentials in the request; undefined when one has (an empty requirement `{}`
 * lets anyone in), or when there are none. Presence is checked, not validity, as Prism does (Basic credentials must
 * be `base64(user:password)` to count as present). A requirement naming a
 * scheme the document does not declare, or one the mock cannot check (see toCheck), counts that scheme as met.
 */
export function findUnmetSecurity(endpoint: ApiEndpoint, credentials: Credentials): string[] | undefined {
  const requirements = endpoint.model.security;
  if (requirements.length === 0) return undefined;
  const present = readCredentials(credentials);
  const isMet = (check: Check): boolean =>
    check.kind === 'apiKey' ? present[check.in](check.name) : present.authorization(check.scheme);
  const challenges = new Set<string>();
  for (const requirement of requirements) {
    const checks = requirement.map(({ scheme }) => scheme && toCheck(scheme));
    if (checks.every((check) => check === undefined || isMet(check))) return undefined;
    for (const check of checks) if (check) challenges.add(challengeOf(check));
  }
  return [...challenges];
}
