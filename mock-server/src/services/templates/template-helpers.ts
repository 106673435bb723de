import { randomUUID } from 'node:crypto';
import Handlebars from 'handlebars';

/** What the seeded helpers draw from: one generator per rendering. */
export interface TemplateRandom {
  /** A number in [0, 1). */
  next(): number;
  /** Faker seeded like next(), loaded on first use. */
  faker(): FakerLike;
}

// Faker is large: it is loaded only when a template uses it.
type FakerLike = Record<string, unknown> & { seed(seed: number): void };

/** The data a helper sees besides its arguments (Handlebars' `options.data.root`). */
interface HelperOptions {
  data?: { random?: TemplateRandom };
  hash?: Record<string, unknown>;
}

const randomOf = (options: HelperOptions): TemplateRandom => {
  const random = options.data?.random;
  if (!random) throw new Error('no random source');
  return random;
};

const formatNow = (format: unknown): string | number => {
  const now = new Date();
  switch (format) {
    case 'epoch':
      return now.getTime();
    case 'unix':
      return Math.floor(now.getTime() / 1000);
    case 'date':
      return now.toISOString().slice(0, 10);
    default:
      return now.toISOString();
  }
};

// `faker 'person.firstName'`: a module and a function of it, nothing else (no way to reach other properties).
const FAKER_PATH = /^[a-z]+\.[a-zA-Z]+$/;

const callFaker = (faker: FakerLike, path: string): unknown => {
  if (!FAKER_PATH.test(path)) throw new Error(`faker ${JSON.stringify(path)}: expected "module.function"`);
  const [module, name] = path.split('.');
  const group = Object.hasOwn(faker, module) ? faker[module] : undefined;
  const fn: unknown = group && typeof group === 'object' ? Reflect.get(group, name) : undefined;
  if (typeof fn !== 'function') throw new Error(`faker has no ${path}`);
  return Reflect.apply(fn, group, []);
};

// Characters JSON allows as they are that break what embeds it: `</script>` and `<!--` in an HTML page, U+2028 and
// U+2029 in JavaScript before ES2019. Outside strings JSON text has none of them, so they are escaped anywhere.
const EMBED_UNSAFE = /[<>&\u2028\u2029]/g;
const escapeForEmbedding = (json: string): string =>
  json.replace(EMBED_UNSAFE, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);

/** A value as JSON text, safe to embed; JSON has no undefined, functions or symbols: they are null. */
const toJsonText = (value: unknown): string => {
  if (typeof value === 'bigint') return value.toString();
  return escapeForEmbedding(JSON.stringify(value) ?? 'null');
};

/** A JSON text as the content of a JSON string (without its quotes). */
const toStringContent = (text: string): string => escapeForEmbedding(JSON.stringify(text)).slice(1, -1);

// Text that is a JSON number, true, false or null: as a value it stays one (`"limit": {{request.query.limit}}` with
// `?limit=5` is 5), and it cannot add anything to the document.
const JSON_SCALAR = /^(?:-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?|true|false|null)$/;

/**
 * The helpers a mock template may call, beside Handlebars' own (if, each, with, unless, lookup). Each is a name
 * templates are compiled against, so an unknown one is a load-time error.
 */
export const templateHelpers: Record<string, Handlebars.HelperDelegate> = {
  /** `{{now}}` ISO 8601; `{{now "epoch"}}` milliseconds, `"unix"` seconds, `"date"` YYYY-MM-DD. */
  now: (...args: unknown[]) => formatNow(args.length > 1 ? args[0] : undefined),
  /** A fresh random UUID (not seeded: an id a POST assigns should not repeat). */
  uuid: () => randomUUID(),
  /** `{{randomInt 1 100}}`: seeded, so the same request gets the same number. */
  randomInt: (min: unknown, max: unknown, options: HelperOptions) => {
    const low = Math.ceil(Number(min));
    const high = Math.floor(Number(max));
    if (!Number.isFinite(low) || !Number.isFinite(high) || high < low) {
      throw new Error(`randomInt ${String(min)} ${String(max)}: expected two numbers, the first not larger`);
    }
    return low + Math.floor(randomOf(options).next() * (high - low + 1));
  },
  /** `{{faker "person.firstName"}}`: seeded fake data (https://fakerjs.dev/api/). */
  faker: (path: unknown, options: HelperOptions) => callFaker(randomOf(options).faker(), String(path)),
  /** `{{json request.body}}`: a value as JSON, unescaped (`<`, `>`, `&`, U+2028 and U+2029 as \u escapes). */
  json: (value: unknown) => new Handlebars.SafeString(toJsonText(value ?? null)),
  /** `{{default request.query.limit 10}}`: the first value when present, else the second. */
  default: (value: unknown, fallback: unknown) =>
    value === undefined || value === null || value === '' ? fallback : value,
  /** `{{#if (eq request.params.id "42")}}`. */
  eq: (a: unknown, b: unknown) => a === b || String(a) === String(b),
};

/**
 * Turns any value into the content of a JSON string, so that a value in `"{{...}}"` keeps the JSON valid: a text as
 * it reads, a number or boolean as written, an object or a list as its JSON text.
 */
export const JSON_STRING_HELPER = 'restbusJsonString';
export const toJsonStringContent = (value: unknown): string => {
  if (value === undefined || value === null) return '';
  // A helper that writes JSON on purpose (json) returns a SafeString: inside a string it is that text.
  if (value instanceof Handlebars.SafeString) return toStringContent(value.toString());
  if (typeof value === 'string') return toStringContent(value);
  if (typeof value !== 'object') return toStringContent(String(value));
  const json = toJsonText(value);
  // An object that serialises as a string (a Date) reads as that string.
  return json.startsWith('"') ? json.slice(1, -1) : toStringContent(json);
};

/**
 * Turns any value into one JSON value, for `{{...}}` where the template expects a value rather than a string: text
 * that is a JSON number, boolean or null as that, other text as a string, objects and lists as JSON, a missing value
 * as null. Whatever the request holds, it is one value: it never adds a member.
 */
export const JSON_VALUE_HELPER = 'restbusJsonValue';
export const toJsonValue = (value: unknown): string => {
  if (value === undefined || value === null) return 'null';
  if (value instanceof Handlebars.SafeString) return value.toString();
  if (typeof value === 'string') return JSON_SCALAR.test(value) ? value : toJsonText(value);
  return toJsonText(value);
};
