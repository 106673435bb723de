import { createHash, randomBytes } from 'node:crypto';
import Ajv from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';

/** The NATS key-value bucket the keys are kept in, unless `--authKeyBucket` names another. */
export const DEFAULT_API_KEY_BUCKET = 'restbus_api_keys';

/** Larger values in the bucket are no key of ours: skipped, and said in the log. */
export const MAX_RECORD_BYTES = 4096;

/** What the bucket keeps of a key, under its hash: never the key itself. */
export const apiKeyRecordSchema = {
  type: 'object',
  required: ['name', 'created'],
  additionalProperties: true,
  properties: {
    /** Who the key is for: the subject the service is told of. */
    name: { type: 'string', minLength: 1, maxLength: 200 },
    created: { type: 'string', minLength: 1, maxLength: 64 },
    /** What the key grants, as a token's scopes do (OpenAPI 3.1 lets any scheme list roles). */
    scopes: { type: 'array', maxItems: 100, items: { type: 'string', minLength: 1, maxLength: 200 } },
  },
} as const;

export type ApiKeyRecord = FromSchema<typeof apiKeyRecordSchema>;

/** A name's characters: printable, no spaces at its ends (it goes into logs and lists). */
export const API_KEY_NAME = /^[\x21-\x7e](?:[\x20-\x7e]{0,198}[\x21-\x7e])?$/;

/**
 * The bucket's key for an API key: its SHA-256, hex. A key is 256 random bits (createApiKey), so a fast hash is
 * enough (as GitHub's and Stripe's tokens): nobody can search the space, and a lookup costs one hash, not a
 * password hash per call.
 */
export function hashApiKey(key: string): string {
  return createHash('sha256').update(key).digest('hex');
}

/** A new key: `rbk_` and 32 random bytes, base64url. The prefix lets secret scanners recognise a leaked one. */
export function createApiKey(): string {
  return `rbk_${randomBytes(32).toString('base64url')}`;
}

let checkRecord: ((value: unknown) => value is ApiKeyRecord) | undefined;

/** The record a bucket value holds, or undefined when it is none of ours (too large, not JSON, another shape). */
export function readApiKeyRecord(value: Uint8Array): ApiKeyRecord | undefined {
  if (value.length > MAX_RECORD_BYTES) return undefined;
  try {
    const parsed: unknown = JSON.parse(new TextDecoder('utf-8', { fatal: true }).decode(value));
    checkRecord ??= new Ajv({ allErrors: false, strict: false }).compile<ApiKeyRecord>(apiKeyRecordSchema);
    return checkRecord(parsed) ? parsed : undefined;
  } catch {
    return undefined;
  }
}
