import { parseJsonInSlices } from './parse-json-in-slices';

/** A seeded generator, so that a failing case can be run again. */
function createRandom(seed: number): () => number {
  let state = seed;
  return () => {
    state = (state * 1103515245 + 12345) % 2147483648;
    return state / 2147483648;
  };
}

const NAMES = ['a', 'b', '__proto__', 'constructor', '1', '0', 'x y', '"q"', 'é', ''];
const STRINGS = ['', 'text', 'with \\"quote\\"', '[{,:}]', '\\u0041\\n', '😀'];

/** Random JSON text with containers of every size, repeated names, `__proto__` and whitespace. */
function randomJson(random: () => number, depth: number): string {
  const pick = <T>(list: readonly T[]): T => list[Math.floor(random() * list.length)];
  const space = (): string => pick(['', '', ' ', '\n\t ']);
  const kind = depth > 4 ? 3 + Math.floor(random() * 4) : Math.floor(random() * 7);
  if (kind < 2) {
    const count = Math.floor(random() * (random() < 0.2 ? 60 : 6));
    return `[${space()}${Array.from({ length: count }, () => randomJson(random, depth + 1)).join(`${space()},${space()}`)}${space()}]`;
  }
  if (kind < 3) {
    const count = Math.floor(random() * (random() < 0.2 ? 40 : 5));
    const members = Array.from(
      { length: count },
      () => `"${pick(NAMES)}"${space()}:${space()}${randomJson(random, depth + 1)}`,
    );
    return `{${space()}${members.join(`,${space()}`)}${space()}}`;
  }
  if (kind < 4) return `"${pick(STRINGS)}"`;
  if (kind < 5) return pick(['0', '-1', '3.25', '1e3', '-0', '12345678901234567890']);
  return pick(['true', 'false', 'null']);
}

/** What JSON.parse makes of a text, comparable with toEqual: own `__proto__` members and key order included. */
const describe_ = (value: unknown): unknown =>
  value !== null && typeof value === 'object'
    ? Array.isArray(value)
      ? value.map(describe_)
      : Object.getOwnPropertyNames(value).map((name) => [name, describe_((value as Record<string, unknown>)[name])])
    : Object.is(value, -0)
      ? '-0'
      : value;

async function outcome(parse: () => unknown): Promise<unknown> {
  try {
    const value = await parse();
    return { value: describe_(value), prototype: Object.getPrototypeOf(value) === Object.prototype };
  } catch (err) {
    return { error: (err as Error).name };
  }
}

describe('parseJsonInSlices', () => {
  it('gives the value JSON.parse gives for random texts, whatever the slice length', async () => {
    const random = createRandom(29);
    for (let round = 0; round < 400; round += 1) {
      const text = randomJson(random, 0);
      for (const slice of [1, 7, 64]) {
        expect({ text, slice, got: await outcome(() => parseJsonInSlices(text, slice)) }).toEqual({
          text,
          slice,
          got: await outcome(() => JSON.parse(text)),
        });
      }
    }
  });

  it('refuses exactly the texts JSON.parse refuses, with a SyntaxError', async () => {
    const random = createRandom(7);
    const breakers = ['', ',', ']', '}', '[', '{', ':', '"', 'x', ' ', '\\', '1', ',]', ',}'];
    let refused = 0;
    for (let round = 0; round < 1500; round += 1) {
      const valid = randomJson(random, 0);
      const at = Math.floor(random() * (valid.length + 1));
      const cut = random() < 0.5 ? 1 : 0;
      const text = valid.slice(0, at) + breakers[Math.floor(random() * breakers.length)] + valid.slice(at + cut);
      const expected = await outcome(() => JSON.parse(text));
      if ('error' in (expected as object)) refused += 1;
      expect({ text, got: await outcome(() => parseJsonInSlices(text, 5)) }).toEqual({ text, got: expected });
    }
    // The mutations must have produced refusals for this to say anything.
    expect(refused).toBeGreaterThan(300);
  });

  it.each([
    ['a trailing comma after a large member', '[[1,2,3,4,5,6,7,8],]'],
    ['a trailing comma in an object', '{"a":[1,2,3,4,5,6,7,8],}'],
    ['a missing comma between large members', '[[1,2,3,4,5,6,7,8] [1,2,3,4,5,6,7,8]]'],
    ['a missing colon', '{"a" [1,2,3,4,5,6,7,8]}'],
    ['a name that is not a string', '{a:[1,2,3,4,5,6,7,8]}'],
    ['mismatched brackets', '[[1,2,3,4,5,6,7,8}]'],
    ['text after the value', '[[1,2,3,4,5,6,7,8]] x'],
    ['an unterminated string', '[[1,2,3,4,5,6,7,8],"abc]'],
    ['an empty member', '[[1,2,3,4,5,6,7,8],,1]'],
  ])('refuses %s as JSON.parse does', async (_what, text) => {
    expect(() => JSON.parse(text)).toThrow(SyntaxError);
    await expect(parseJsonInSlices(text, 4)).rejects.toThrow(SyntaxError);
  });

  it('keeps the last value of a repeated name in the place of its first, across slices', async () => {
    const text = `{"a":1,"b":[${'0,'.repeat(50)}0],"a":2,"__proto__":{"polluted":true}}`;
    const parsed = (await parseJsonInSlices(text, 8)) as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(['a', 'b', '__proto__']);
    expect(parsed.a).toBe(2);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it('lets the event loop run between slices of a large text', async () => {
    const text = `[${Array.from({ length: 40_000 }, () => '[[],{}]').join(',')}]`;
    let turns = 0;
    const count = setInterval(() => (turns += 1), 0);
    const parsed = (await parseJsonInSlices(text, 16 * 1024)) as unknown[];
    clearInterval(count);
    expect(parsed).toHaveLength(40_000);
    // 320 KB in slices of 16 KB: about twenty turns, each of which lets a timer fire.
    expect(turns).toBeGreaterThan(5);
  });

  it('parses one object of 60,000 names in slices: past a thousand names each member costs JSON.parse 20x more', async () => {
    const text = `{${Array.from({ length: 60_000 }, (_, i) => `"k${i}":${i}`).join(',')}}`;
    // Turns of the loop counted by a chain of immediates: parsed at once, the parse would let one or two run.
    let turns = 0;
    let counting = true;
    const turn = (): void => {
      turns += 1;
      if (counting) setImmediate(turn);
    };
    setImmediate(turn);
    const parsed = (await parseJsonInSlices(text)) as Record<string, number>;
    counting = false;
    expect(Object.keys(parsed)).toHaveLength(60_000);
    expect(parsed.k59999).toBe(59_999);
    expect(turns).toBeGreaterThan(5);
  });

  it('parses large texts one after the other, so that only one half-built value is held at a time', async () => {
    const large = `[${Array.from({ length: 20_000 }, () => '[{}]').join(',')}]`;
    const smaller = `[${Array.from({ length: 600 }, () => '[{}]').join(',')}]`;
    const finished: string[] = [];
    await Promise.all([
      parseJsonInSlices(large, 1024).then(() => finished.push('large, queued first')),
      parseJsonInSlices(smaller, 1024).then(() => finished.push('smaller, queued second')),
    ]);
    // Interleaved, the smaller text (3 slices) would be done long before the large one (100 slices).
    expect(finished).toEqual(['large, queued first', 'smaller, queued second']);
  });

  it('parses a text shorter than a slice in one call, without waiting for a turn', async () => {
    let turned = false;
    setImmediate(() => (turned = true));
    await expect(parseJsonInSlices('{"a":[1,2]}')).resolves.toEqual({ a: [1, 2] });
    expect(turned).toBe(false);
  });
});
