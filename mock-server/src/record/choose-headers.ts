import { validateHeaderName, validateHeaderValue, type IncomingHttpHeaders } from 'node:http';
import { SET_BY_THE_SERVER } from '../services/prepare-responses';

/** A `headers` or `cookies` entry of a descriptor. */
export interface Field {
  field: string;
  content: string;
}

// About the connection and the framing (the mock server sets them for what it sends), the encoding (the body is
// recorded decoded), and what changes from one answer to the next or names the real server: a mock that replays
// them would be wrong (a stale Date, an ETag of another body) or say what it is not.
const LEFT_OUT = new Set([
  ...SET_BY_THE_SERVER,
  'content-encoding',
  'content-range',
  'accept-ranges',
  'date',
  'etag',
  'last-modified',
  'expires',
  'age',
  'vary',
  'via',
  'server',
  'x-powered-by',
  'server-timing',
  'x-response-time',
  'x-runtime',
  'x-request-id',
  'x-correlation-id',
  'request-id',
  'x-amzn-requestid',
  'x-amz-request-id',
  'x-amz-id-2',
  'x-amz-cf-id',
  'cf-ray',
  'cf-cache-status',
  'x-served-by',
  'x-cache',
  'x-cache-hits',
  'x-timer',
  'alt-svc',
  'nel',
  'report-to',
  'retry-after',
  'strict-transport-security',
  // The mock server sends its own.
  'x-application-api-version',
  'x-mock-warning',
]);
const LEFT_OUT_PREFIXES = ['x-ratelimit-', 'ratelimit', 'x-rate-limit-'];

/** The headers that carry credentials or a session: recorded only with --record-secrets. */
export const SECRET_HEADERS = new Set(['authorization', 'proxy-authorization', 'cookie', 'set-cookie']);
// A response header named like one that hands out a credential (`X-Auth-Token`, `X-Api-Key`, `X-Session-Id`).
const SECRET_NAME = /token|secret|passw|credential|api-?key|auth|session|csrf|xsrf|signature/i;

/** Whether a header holds a secret: one of SECRET_HEADERS, or a name like `X-Auth-Token`. */
export const isSecretHeader = (name: string): boolean => SECRET_HEADERS.has(name) || SECRET_NAME.test(name);

/** The header's name as it is usually written: `content-type` → `Content-Type`. */
const display = (name: string): string =>
  name.replace(/(^|-)([a-z])/g, (_whole, dash: string, letter: string) => dash + letter.toUpperCase());

const valid = (field: string, content: string): boolean => {
  try {
    validateHeaderName(field);
    validateHeaderValue(field, content);
    return true;
  } catch {
    return false;
  }
};

/** `name=value; Path=/` → `{ field: name, content: value }` (the mock server adds `Path=/` itself). */
function toCookie(text: string): Field | undefined {
  const pair = text.split(';')[0];
  const equals = pair.indexOf('=');
  if (equals <= 0) return undefined;
  const field = pair.slice(0, equals).trim();
  let content = pair.slice(equals + 1).trim();
  if (content.startsWith('"') && content.endsWith('"') && content.length > 1) content = content.slice(1, -1);
  try {
    content = decodeURIComponent(content);
  } catch {
    // Kept as sent.
  }
  return /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(field) ? { field, content } : undefined;
}

export interface ChosenHeaders {
  headers: Field[];
  cookies: Field[];
  /** The secret headers left out (without --record-secrets), as written: `Authorization`. */
  withheld: string[];
}

/**
 * The response headers worth replaying, Content-Type first; Set-Cookie becomes the response's `cookies`. Secrets
 * (see isSecretHeader) only when `recordSecrets`.
 */
export function chooseResponseHeaders(headers: IncomingHttpHeaders, recordSecrets: boolean): ChosenHeaders {
  const chosen: ChosenHeaders = { headers: [], cookies: [], withheld: [] };
  for (const [name, value] of Object.entries(headers)) {
    if (value === undefined || LEFT_OUT.has(name) || LEFT_OUT_PREFIXES.some((prefix) => name.startsWith(prefix))) {
      continue;
    }
    if (isSecretHeader(name) && !recordSecrets) {
      chosen.withheld.push(display(name));
      continue;
    }
    if (name === 'set-cookie') {
      for (const line of Array.isArray(value) ? value : [value]) {
        const cookie = toCookie(line);
        if (cookie) chosen.cookies.push(cookie);
      }
      continue;
    }
    const field = display(name);
    const content = (Array.isArray(value) ? value : [value]).join(', ');
    if (valid(field, content)) chosen.headers.push({ field, content });
  }
  chosen.headers.sort((a, b) => Number(b.field === 'Content-Type') - Number(a.field === 'Content-Type'));
  return chosen;
}

/**
 * The request headers a descriptor documents: Accept (unless it takes any type) and the body's Content-Type; with
 * `recordSecrets` also Authorization and Proxy-Authorization, and Cookie as the request's `cookies`.
 */
export function chooseRequestHeaders(headers: IncomingHttpHeaders, recordSecrets: boolean): ChosenHeaders {
  const chosen: ChosenHeaders = { headers: [], cookies: [], withheld: [] };
  const add = (name: string, field: string): void => {
    const value = headers[name];
    if (typeof value === 'string' && valid(field, value)) chosen.headers.push({ field, content: value });
  };
  if (headers.accept && headers.accept !== '*/*') add('accept', 'Accept');
  add('content-type', 'Content-Type');
  for (const [name, field] of [
    ['authorization', 'Authorization'],
    ['proxy-authorization', 'Proxy-Authorization'],
    ['cookie', 'Cookie'],
  ]) {
    if (headers[name] === undefined) continue;
    if (!recordSecrets) chosen.withheld.push(field);
    else if (name !== 'cookie') add(name, field);
    else {
      for (const part of String(headers.cookie).split(';')) {
        const cookie = toCookie(part);
        if (cookie) chosen.cookies.push(cookie);
      }
    }
  }
  return chosen;
}
