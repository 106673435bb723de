import { RestbusError } from '@restbus/infra';

/**
 * What a request asks of the mock: `Prefer: code=404, example=cat, dynamic=true` (RFC 7240 preferences, as Prism
 * reads them), or Prism's query selectors `?__code=404&__example=cat&__dynamic=true` when it has no `Prefer`.
 */
export interface MockPreference {
  code?: number;
  example?: string;
  /** `true`: the body built from the schema, not the example (Prism's dynamic mode, but the same every time). */
  dynamic?: boolean;
  /** Where the preferences were read, for messages: the query's selectors, else `Prefer`. */
  from?: 'query';
}

/** How a message names what the request asked for: `Prefer: code=503` or `?__code=503`. */
export function nameSelector(preference: MockPreference, name: 'code' | 'example' | 'dynamic', value: string): string {
  return preference.from === 'query' ? `?__${name}=${value}` : `Prefer: ${name}=${value}`;
}

/** `value`, `"value"`, or undefined when the value is quoted wrongly (a quote inside it). */
function unquote(text: string): string | undefined {
  const inner = text.length >= 2 && text.startsWith('"') && text.endsWith('"') ? text.slice(1, -1) : text;
  const bare = inner.startsWith('"') ? inner.slice(1) : inner.endsWith('"') ? inner.slice(0, -1) : inner;
  return bare.includes('"') ? undefined : bare;
}

/**
 * Sets one preference on `preference`. A code that is no final HTTP status (200-599) is a 400: a 1xx is interim, and
 * written as the answer it would leave the client waiting for one that never comes. `dynamic` is `true` or `false`
 * (Prism's words); anything else is a 400 too.
 */
function setPreference(preference: MockPreference, name: 'code' | 'example' | 'dynamic', value: string): void {
  if (name === 'example') {
    preference.example = value;
  } else if (name === 'dynamic') {
    if (value !== 'true' && value !== 'false') {
      throw new RestbusError(
        'BAD_REQUEST',
        `${nameSelector(preference, 'dynamic', value.slice(0, 16))} is neither true nor false: true answers the body built from the schema, false the example`,
      );
    }
    preference.dynamic = value === 'true';
  } else if (/^[2-5]\d\d$/.test(value)) {
    preference.code = Number(value);
  } else {
    throw new RestbusError(
      'BAD_REQUEST',
      `${nameSelector(preference, 'code', value.slice(0, 16))} is not a final HTTP status (200-599): the mock answers with one of the responses the operation declares`,
    );
  }
}

const isSelector = (name: string): name is 'code' | 'example' | 'dynamic' =>
  name === 'code' || name === 'example' || name === 'dynamic';

/**
 * Reads `Prefer: code=404, example=notFound, dynamic=true` (one header or several; the last of each wins), in one
 * pass whatever the header's length.
 */
export function readPrefer(header: string | string[] | undefined): MockPreference {
  const preference: MockPreference = {};
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(/[,;]/)) {
    const equals = part.indexOf('=');
    if (equals < 0) continue;
    const name = part.slice(0, equals).trim().toLowerCase();
    if (!isSelector(name)) continue;
    const value = unquote(part.slice(equals + 1).trim());
    if (value !== undefined) setPreference(preference, name, value);
  }
  return preference;
}

/**
 * Reads Prism's query selectors `__code`, `__example` and `__dynamic` (the last of each wins), with the rules and
 * errors of `Prefer`. Only a query with `__` in it is parsed: the mock's hot path pays one `includes`.
 */
export function readQuerySelectors(query: string): MockPreference {
  const preference: MockPreference = { from: 'query' };
  if (!query.includes('__')) return preference;
  for (const [key, value] of new URLSearchParams(query)) {
    const name = key.startsWith('__') ? key.slice(2) : '';
    if (isSelector(name)) setPreference(preference, name, value);
  }
  return preference;
}

/**
 * What a call asks of the mock, as Prism reads it: its `Prefer` header when it has one (even one naming nothing the
 * mock reads: then the query's selectors are not looked at), else the query's selectors.
 */
export function readMockPreference(prefer: string | string[] | undefined, query: string): MockPreference {
  const hasPrefer = Array.isArray(prefer) ? prefer.length > 0 : prefer !== undefined && prefer !== '';
  return hasPrefer ? readPrefer(prefer) : readQuerySelectors(query);
}
