/**
 * Work counted, not timed (issue 45): the units of work a piece of code does, the same on a quiet machine and on a
 * busy one. While `meterWork` runs, the string, array and JSON built-ins are wrapped so that each call adds what it
 * handles: a character read (`charCodeAt`) is one unit, a scan (`split`, `indexOf`, `toLowerCase`, `includes` …)
 * the length it is handed, a copy (`slice`, `concat`, `repeat`, `JSON.stringify` …) the length it makes, a
 * `JSON.parse` the length of its text. Values passed through `watch` (or, with `watchParsed`, every value JSON.parse
 * returns) count a unit for each read of a member, and their names when listed. A linear path counts about 8x the
 * units for 8x the input; a quadratic one 64x.
 */

type Weigh = (self: unknown, args: unknown[], result: unknown) => number;

const sizeOf = (value: unknown): number =>
  typeof value === 'string' ? value.length : Array.isArray(value) ? value.length : 0;
const ONE: Weigh = () => 1;
const SCAN: Weigh = (self) => sizeOf(self);
const MADE: Weigh = (_self, _args, result) => sizeOf(result);
const ARGUMENT: Weigh = (_self, args) => 1 + sizeOf(args[0]);

const STRING_METHODS: Record<string, Weigh> = {
  charCodeAt: ONE,
  charAt: ONE,
  codePointAt: ONE,
  at: ONE,
  startsWith: ARGUMENT,
  endsWith: ARGUMENT,
  split: SCAN,
  indexOf: SCAN,
  lastIndexOf: SCAN,
  includes: SCAN,
  trim: SCAN,
  trimStart: SCAN,
  trimEnd: SCAN,
  toLowerCase: SCAN,
  toUpperCase: SCAN,
  replace: SCAN,
  replaceAll: SCAN,
  match: SCAN,
  matchAll: SCAN,
  search: SCAN,
  normalize: SCAN,
  slice: MADE,
  substring: MADE,
  substr: MADE,
  repeat: MADE,
  padStart: MADE,
  padEnd: MADE,
  concat: MADE,
};

const ARRAY_METHODS: Record<string, Weigh> = {
  concat: MADE,
  slice: MADE,
  join: MADE,
  indexOf: SCAN,
  lastIndexOf: SCAN,
  includes: SCAN,
  map: SCAN,
  filter: SCAN,
  forEach: SCAN,
  some: SCAN,
  every: SCAN,
  find: SCAN,
  findIndex: SCAN,
  reduce: SCAN,
  flatMap: SCAN,
};

/** The meter that counts now, if any; `byName` when RESTBUS_METER_BY_NAME is set (to find where work goes). */
let counting: { units: number; byName?: Map<string, number> } | undefined;

const add = (units: number, name = 'read'): void => {
  if (!counting) return;
  counting.units += units;
  counting.byName?.set(name, (counting.byName.get(name) ?? 0) + units);
};

/** Replaces `names` of `target` by counting wrappers; returns what puts the originals back. */
function wrap(target: object, names: Record<string, Weigh>): () => void {
  const originals = new Map<string, (...args: unknown[]) => unknown>();
  const slots = target as Record<string, (...args: unknown[]) => unknown>;
  for (const [name, weigh] of Object.entries(names)) {
    const original = slots[name];
    originals.set(name, original);
    slots[name] = function (this: unknown, ...args: unknown[]): unknown {
      const result = Reflect.apply(original, this, args);
      add(weigh(this, args, result), name);
      return result;
    };
  }
  return () => {
    for (const [name, original] of originals) slots[name] = original;
  };
}

const watched = new WeakMap<object, object>();

/** `value` as seen through a view that counts a unit for each member read, and its names when they are listed. */
export function watch<T>(value: T): T {
  if (typeof value !== 'object' || value === null) return value;
  let view = watched.get(value);
  if (!view) {
    view = new Proxy(value, {
      get(target, key, receiver) {
        add(1);
        return watch(Reflect.get(target, key, receiver) as unknown);
      },
      has(target, key) {
        add(1);
        return Reflect.has(target, key);
      },
      getOwnPropertyDescriptor(target, key) {
        add(1);
        return Reflect.getOwnPropertyDescriptor(target, key);
      },
      ownKeys(target) {
        const keys = Reflect.ownKeys(target);
        add(keys.length);
        return keys;
      },
    });
    watched.set(value, view);
    watched.set(view, view);
  }
  return view as T;
}

export interface MeterOptions {
  /** Every value JSON.parse returns is watched (a body the code parses itself, then reads). */
  watchParsed?: boolean;
}

/** The units of work `work` does (it may be async: nothing else is to run meanwhile), and what it returned. */
export async function meterWork<T>(
  work: () => T | Promise<T>,
  options: MeterOptions = {},
): Promise<{ units: number; value: T }> {
  const meter = { units: 0, byName: process.env.RESTBUS_METER_BY_NAME ? new Map<string, number>() : undefined };
  const parse = JSON.parse;
  const stringify = JSON.stringify;
  const restores = [wrap(String.prototype, STRING_METHODS), wrap(Array.prototype, ARRAY_METHODS)];
  JSON.parse = (text: string, reviver?: Parameters<typeof JSON.parse>[1]): unknown => {
    add(1 + sizeOf(text), 'JSON.parse');
    const value: unknown = parse(text, reviver);
    return options.watchParsed ? watch(value) : value;
  };
  JSON.stringify = ((...args: Parameters<typeof JSON.stringify>) => {
    const text = stringify(...args);
    add(1 + sizeOf(text), 'JSON.stringify');
    return text;
  }) as typeof JSON.stringify;
  counting = meter;
  try {
    const value = await work();
    if (meter.byName) process.stderr.write(`${JSON.stringify(Object.fromEntries(meter.byName))}\n`);
    return { units: meter.units, value };
  } finally {
    counting = undefined;
    JSON.parse = parse;
    JSON.stringify = stringify;
    for (const restore of restores) restore();
  }
}

/** The units of work at 1x and 8x an input, and how they grew. */
export interface ScaledWork {
  small: number;
  large: number;
  /** large / small: about 8 for linear work, about 64 for quadratic, about 1 for work bounded whatever the input. */
  ratio: number;
}

/**
 * Meters `work` on the input `make(1)` and on `make(8)`. The inputs are made before the meter runs: only the work
 * on them is counted.
 */
export async function meterAtScales<I>(
  make: (scale: number) => I,
  work: (input: I) => unknown,
  options: MeterOptions = {},
): Promise<ScaledWork> {
  const units: number[] = [];
  for (const scale of [1, 8]) {
    const input = make(scale);
    units.push((await meterWork(() => work(input), options)).units);
  }
  const [small, large] = units;
  return { small, large, ratio: large / Math.max(small, 1) };
}

/** 8x the input, at most 10x the work: linear (quadratic work is 64x). */
export const LINEAR = 10;
/**
 * 8x a JSON body, at most 16x the work: a body past what one JSON.parse reads without holding the loop (64 KiB of
 * dense JSON) is parsed in slices, a second pass over its text and copies of its slices, so 1x (parsed at once) and
 * 8x (in slices) differ by a constant factor on top of 8x (12x measured); quadratic work is still 64x.
 */
export const LINEAR_SLICED = 16;
/** 8x the input, at least 40x the work: what each negative control, a quadratic version, must show. */
export const QUADRATIC = 40;
