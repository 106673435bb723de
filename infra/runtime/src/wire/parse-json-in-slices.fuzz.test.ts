import fc from 'fast-check';
import { HOSTILE_PIECES, FuzzTally } from '../testing';
import { parseJsonInSlices } from './parse-json-in-slices';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const key = fc.oneof(
  fc.constantFrom('__proto__', 'constructor', 'a', 'a', 'b'),
  fc.string({ unit: anyUnit, maxLength: 3 }),
);
const value = fc.letrec((tie) => ({
  value: fc.oneof(
    { depthSize: 'medium', withCrossShrink: true },
    fc.oneof(fc.constant(null), fc.boolean(), fc.double(), fc.string({ unit: anyUnit, maxLength: 4 })),
    fc.array(tie('value'), { maxLength: 4 }),
    // Members as written, so that a name can repeat.
    fc.array(fc.tuple(key, tie('value')), { maxLength: 4 }),
  ),
})).value;
const space = fc.constantFrom('', ' ', '\n', '\t\r\n ');

/** JSON text for a generated value, with `[name, value]` lists written as objects and spaces between tokens. */
function write(item: unknown, gap: string): string {
  if (!Array.isArray(item)) return JSON.stringify(item) ?? 'null';
  const isObject =
    item.length > 0 &&
    item.every((member) => Array.isArray(member) && member.length === 2 && typeof member[0] === 'string');
  const inner = isObject
    ? (item as Array<[string, unknown]>).map(
        ([name, member]) => `${gap}${JSON.stringify(name)}${gap}:${gap}${write(member, gap)}`,
      )
    : item.map((member) => `${gap}${write(member, gap)}`);
  return isObject ? `{${inner.join(',')}${gap}}` : `[${inner.join(',')}${gap}]`;
}

/** Text that is JSON, or nearly: one cut or one hostile insertion. */
const text = fc.tuple(value, space).chain(([item, gap]) => {
  const json = write(item, gap);
  return fc.oneof(
    fc.constant(json),
    fc.nat(json.length).map((at) => json.slice(0, at) + json.slice(at + 1)),
    fc
      .tuple(fc.nat(json.length), fc.constantFrom(...HOSTILE_PIECES, ',', ':', '"', '\\'))
      .map(([at, piece]) => json.slice(0, at) + piece + json.slice(at)),
  );
});

const tally = new FuzzTally('parsers fuzz: parse-json-in-slices');
let sliced = 0;
afterAll(() => tally.record());

/** The value as JSON text with each object's prototype named: what two parses must agree on. */
function describeParsed(parsed: unknown): string {
  return JSON.stringify(parsed, function (this: unknown, _name, inner: unknown) {
    if (inner === null || typeof inner !== 'object' || Array.isArray(inner)) return inner;
    return { proto: Object.getPrototypeOf(inner) === Object.prototype, own: Object.entries(inner) };
  });
}

async function outcome(parse: () => unknown): Promise<string> {
  try {
    return describeParsed(await parse());
  } catch (err) {
    return err instanceof SyntaxError ? 'SyntaxError' : `crash: ${String(err)}`;
  }
}

describe('parseJsonInSlices under fuzzed JSON', () => {
  it('gives what JSON.parse gives, repeated and __proto__ names included, or refuses what it refuses', async () => {
    await fc.assert(
      fc.asyncProperty(text, fc.integer({ min: 1, max: 8 }), async (json, sliceLength) => {
        tally.cases++;
        // Enough containers to be parsed a slice at a time rather than by one JSON.parse.
        if ((json.match(/[[{]/g)?.length ?? 0) > sliceLength + 2) sliced++;
        const expected = await outcome(() => JSON.parse(json));
        expect(await outcome(() => parseJsonInSlices(json, sliceLength))).toBe(expected);
      }),
      { seed: 440_691, numRuns: 1000 },
    );
    expect(sliced).toBeGreaterThan(200);
  });
});
