import { parse as parseCookies } from 'cookie';
import { RestbusError } from '@restbus/infra';
import type { ApiKeyStore } from './api-keys/api-key-store';
import type { PolicyCall } from './call-policy';
import { quoteHeaderValue, type SchemeCheck, type SchemeOutcome } from './scheme-check';

/** Where an `apiKey` scheme's key is sent. */
export interface ApiKeyPlace {
  in: 'header' | 'query' | 'cookie';
  name: string;
}

/** Longer values are no key of ours (createApiKey makes 47 characters): refused unhashed. */
const MAX_KEY_LENGTH = 512;

/** The key a call sends where the scheme says; `[]` when it sends it more than once (which one would count?). */
function readKey(call: PolicyCall, place: ApiKeyPlace): string | string[] | undefined {
  if (place.in === 'header') {
    const value = call.req.headers[place.name.toLowerCase()];
    return Array.isArray(value) ? [] : value;
  }
  if (place.in === 'query') {
    const values = new URLSearchParams(call.query).getAll(place.name);
    return values.length > 1 ? [] : values[0];
  }
  const header = call.req.headers.cookie;
  if (header === undefined) return undefined;
  const matches = header.split(';').filter((pair) => pair.split('=')[0].trim() === place.name);
  return matches.length > 1 ? [] : parseCookies(header)[place.name];
}

/**
 * An `apiKey` scheme verified against the keys of the API key bucket (ApiKeyStore): the caller is the key's name, its
 * scopes the key's. A key sent twice, or longer than any key made, is refused as invalid.
 */
export class ApiKeyCheck implements SchemeCheck {
  constructor(
    readonly name: string,
    private readonly place: ApiKeyPlace,
    private readonly keys: ApiKeyStore,
  ) {}

  async check(call: PolicyCall): Promise<SchemeOutcome> {
    const key = readKey(call, this.place);
    if (key === undefined) return { kind: 'absent' };
    if (Array.isArray(key)) return { kind: 'invalid', code: 'TOKEN_INVALID', reason: 'the key was sent twice' };
    if (key === '' || key.length > MAX_KEY_LENGTH)
      return { kind: 'invalid', code: 'TOKEN_INVALID', reason: 'not a key' };
    const record = this.keys.lookup(key);
    if (record === 'unavailable') {
      const error = new RestbusError('AUTH_UNAVAILABLE', 'the credentials cannot be checked just now', {
        headers: { 'retry-after': '1' },
      });
      return { kind: 'unavailable', error };
    }
    if (!record) return { kind: 'invalid', code: 'TOKEN_INVALID', reason: 'unknown key' };
    return { kind: 'verified', subject: record.name, scopes: new Set(record.scopes ?? []), claims: {} };
  }

  challenge(): string {
    return `ApiKey in=${quoteHeaderValue(this.place.in)}, name=${quoteHeaderValue(this.place.name)}`;
  }
}
