import { RestbusError } from '@restbus/infra';

/** What a request's `Prefer` header asks of the mock (RFC 7240 preferences, as Prism reads them). */
export interface MockPreference {
  code?: number;
  example?: string;
}

/** `value`, `"value"`, or undefined when the value is quoted wrongly (a quote inside it). */
function unquote(text: string): string | undefined {
  const inner = text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
  const bare = inner.startsWith('"') ? inner.slice(1) : inner.endsWith('"') ? inner.slice(0, -1) : inner;
  return bare.includes('"') ? undefined : bare;
}

/**
 * Reads `Prefer: code=404, example=notFound` (one header or several; the last of each wins), in one pass whatever
 * the header's length. A code that is no final HTTP status (200-599) is a 400: a 1xx is interim, and written as the
 * answer it would leave the client waiting for one that never comes.
 */
export function readPrefer(header: string | string[] | undefined): MockPreference {
  const preference: MockPreference = {};
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(/[,;]/)) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const name = part.slice(0, equals).trim().toLowerCase();
    if (name !== 'code' && name !== 'example') continue;
    const value = unquote(part.slice(equals + 1).trim());
    if (value === undefined) continue;
    if (name === 'example') {
      preference.example = value;
    } else if (/^[2-5]\d\d$/.test(value)) {
      preference.code = Number(value);
    } else {
      throw new RestbusError(
        'BAD_REQUEST',
        `Prefer: code=${value.slice(0, 16)} is not a final HTTP status (200-599): the mock answers with one of the responses the operation declares`,
      );
    }
  }
  return preference;
}
