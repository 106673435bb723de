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
  const group = Object.hasOwn(faker, module) ? (faker[module] as Record<string, unknown>) : undefined;
  const fn = group && typeof group === 'object' ? group[name] : undefined;
  if (typeof fn !== 'function') throw new Error(`faker has no ${path}`);
  return (fn as () => unknown).call(group);
};

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
  /** `{{json request.body}}`: a value as JSON, unescaped. */
  json: (value: unknown) => new Handlebars.SafeString(JSON.stringify(value ?? null)),
  /** `{{default request.query.limit 10}}`: the first value when present, else the second. */
  default: (value: unknown, fallback: unknown) =>
    value === undefined || value === null || value === '' ? fallback : value,
  /** `{{#if (eq request.params.id "42")}}`. */
  eq: (a: unknown, b: unknown) => a === b || String(a) === String(b),
};

/** Turns any value into the content of a JSON string, so that a value in `"{{...}}"` keeps the JSON valid. */
export const JSON_STRING_HELPER = 'restbusJsonString';
export const toJsonStringContent = (value: unknown): string => {
  // A helper that writes JSON on purpose (json) returns a SafeString: it goes out as it is.
  if (value instanceof Handlebars.SafeString) return value.toString();
  if (value === undefined || value === null) return '';
  if (typeof value === 'object') return JSON.stringify(value);
  return JSON.stringify(String(value)).slice(1, -1);
};
