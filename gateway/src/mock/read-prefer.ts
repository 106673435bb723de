import { RestbusError } from '@restbus/infra';

/** What a request's `Prefer` header asks of the mock (RFC 7240 preferences, as Prism reads them). */
export interface MockPreference {
  code?: number;
  example?: string;
}

/** Reads `Prefer: code=404, example=notFound` (one header or several); a code that is no HTTP status is a 400. */
export function readPrefer(header: string | string[] | undefined): MockPreference {
  const preference: MockPreference = {};
  for (const part of (Array.isArray(header) ? header.join(',') : (header ?? '')).split(/[,;]/)) {
    const match = /^\s*(code|example)\s*=\s*"?([^"]*)"?\s*$/i.exec(part);
    if (!match) continue;
    if (match[1].toLowerCase() === 'example') {
      preference.example = match[2];
    } else if (/^[1-5]\d\d$/.test(match[2])) {
      preference.code = Number(match[2]);
    } else {
      throw new RestbusError('BAD_REQUEST', `Prefer: code=${match[2].slice(0, 16)} is not an HTTP status (100-599)`);
    }
  }
  return preference;
}
