import Ajv, { type ValidateFunction } from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';

/** The extension an operation (or the whole document) declares its limits with. */
export const RATE_LIMIT_EXTENSION = 'x-restbus-rate-limit';

/** An HTTP token (RFC 9110 §5.6.2): what a header name must be. */
const HEADER_NAME = "[!#$%&'*+.^_`|~0-9A-Za-z-]+";

const limitSchema = {
  type: 'object',
  additionalProperties: false,
  required: ['limit', 'window'],
  properties: {
    /** What the limit is called in the RateLimit headers and the metrics; unique among an operation's limits. */
    name: { type: 'string', pattern: '^[A-Za-z0-9_.-]{1,64}$' },
    /** Calls a client may make in one window. */
    limit: { type: 'integer', minimum: 1, maximum: 1_000_000_000 },
    /** The window: a whole number and a unit, `s`, `m`, `h` or `d` (`1s`, `10m`, `1d`), at most 31 days. */
    window: { type: 'string', pattern: '^[1-9][0-9]{0,6}[smhd]$' },
    /**
     * Who a client is: `subject` (the verified subject or API key's name with --auth verify, else the address),
     * `address` (the caller's address; behind trusted proxies, the forwarded one), `header:<name>` (that header's
     * value, else the address), or `anyone` (one count for every caller).
     */
    by: { type: 'string', pattern: `^(subject|address|anyone|header:${HEADER_NAME})$` },
  },
} as const;

/** One limit or several (a burst and a daily quota); `[]` on an operation lifts the document's. */
export const rateLimitExtensionSchema = {
  anyOf: [limitSchema, { type: 'array', maxItems: 8, items: limitSchema }],
} as const;

export type RateLimitDeclaration = FromSchema<typeof limitSchema>;
type RateLimitExtension = FromSchema<typeof rateLimitExtensionSchema>;

/** Who counts as one client of a limit. */
export type ClientKind = { kind: 'subject' | 'address' | 'anyone' } | { kind: 'header'; name: string };

/** A limit as the gateway applies it. */
export interface RateLimit {
  name: string;
  limit: number;
  windowMs: number;
  /** The window in seconds, as RateLimit-Policy says it (`w`). */
  windowSeconds: number;
  by: ClientKind;
}

/** Seconds in a window's unit: the schema let only `s`, `m`, `h` and `d` through. */
const secondsOf = (unit: string | undefined): number =>
  unit === 'd' ? 86_400 : unit === 'h' ? 3600 : unit === 'm' ? 60 : 1;
const MAX_WINDOW_SECONDS = 31 * 86_400;

/** What a member a pattern refused must be, said as a person would (the pattern itself helps nobody). */
const PATTERN_HINTS: Record<string, string | undefined> = {
  window: 'must be a whole number and a unit, s, m, h or d (30s, 1m, 1d)',
  by: 'must be subject, address, anyone or header:<name>',
  name: 'must be 1 to 64 letters, digits, _, . or -',
};

let checkExtension: ValidateFunction<RateLimitExtension> | undefined;

function readClientKind(by: string | undefined): ClientKind {
  if (by === undefined || by === 'address') return { kind: 'address' };
  if (by === 'subject' || by === 'anyone') return { kind: by };
  // Node has the header names in lower case.
  return { kind: 'header', name: by.slice('header:'.length).toLowerCase() };
}

/**
 * The limits a value of `x-restbus-rate-limit` declares, or why it cannot be applied (a message that names the
 * member). A limit without a name is called after its place (`limit`, or `limit-2` for the second of a list).
 */
export function readRateLimits(value: unknown): RateLimit[] | string {
  checkExtension ??= new Ajv({ allErrors: false, strict: false }).compile<RateLimitExtension>(rateLimitExtensionSchema);
  if (!checkExtension(value)) {
    // anyOf's own error says only that neither shape fits: the error of the shape the value has says more.
    const branch = Array.isArray(value) ? '#/anyOf/1' : '#/anyOf/0';
    const detail = checkExtension.errors?.find((error) => error.schemaPath.startsWith(branch));
    const isShaped = Array.isArray(value) || (typeof value === 'object' && value !== null);
    if (!detail || !isShaped) return `${RATE_LIMIT_EXTENSION} must be a limit ({limit, window, by}) or a list of them`;
    const member = detail.instancePath.split('/').at(-1) ?? '';
    const message = (detail.keyword === 'pattern' && PATTERN_HINTS[member]) || detail.message || 'is invalid';
    return `${RATE_LIMIT_EXTENSION}${detail.instancePath.replaceAll('/', '.')} ${message}`;
  }
  const declared = Array.isArray(value) ? value : [value];
  const limits: RateLimit[] = [];
  for (const [i, one] of declared.entries()) {
    const seconds = Number(one.window.slice(0, -1)) * secondsOf(one.window.at(-1));
    if (seconds > MAX_WINDOW_SECONDS) return `${RATE_LIMIT_EXTENSION} window ${one.window} is longer than 31 days`;
    const name = one.name ?? (declared.length === 1 || i === 0 ? 'limit' : `limit-${i + 1}`);
    if (limits.some((other) => other.name === name)) return `${RATE_LIMIT_EXTENSION} names two limits "${name}"`;
    limits.push({
      name,
      limit: one.limit,
      windowMs: seconds * 1000,
      windowSeconds: seconds,
      by: readClientKind(one.by),
    });
  }
  return limits;
}
