import fc from 'fast-check';
import { HOSTILE_PIECES, FuzzTally } from '../testing';
import { MAX_JSON_DEPTH } from '../limits/max-json-depth';
import { isNestedDeeperThan } from './find-json-depth';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...HOSTILE_PIECES, '\\"', '"[', ']"', '\\\\"', '{"a":'),
      fc.string({ unit: anyUnit, maxLength: 3 }),
      fc.integer({ min: 1, max: 80 }).map((depth) => '['.repeat(depth)),
      fc.integer({ min: 1, max: 80 }).map((depth) => ']'.repeat(depth)),
    ),
    { maxLength: 12 },
  )
  .map((pieces) => pieces.join(''));
// Valid JSON around the bound: arrays and objects nested 50 to 80 levels, a string of brackets innermost.
const deepJson = fc.array(fc.constantFrom('[', '{"a":'), { minLength: 50, maxLength: 80 }).map((opened) => {
  const closers = opened.map((open) => (open === '[' ? ']' : '}')).reverse();
  return `${opened.join('')}"[{\\\\\\"[["${closers.join('')}`;
});

/** Levels of arrays and objects in a parsed value, counted by walking it (a loop: fuzzed values nest deep). */
function depthOf(value: unknown): number {
  let deepest = 0;
  const pending: Array<[unknown, number]> = [[value, 0]];
  while (pending.length > 0) {
    const [next, depth] = pending.pop()!;
    if (typeof next !== 'object' || next === null) continue;
    deepest = Math.max(deepest, depth + 1);
    for (const inner of Object.values(next)) pending.push([inner, depth + 1]);
  }
  return deepest;
}

const tally = new FuzzTally('parsers fuzz: find-json-depth');
afterAll(() => tally.record());

describe('isNestedDeeperThan under fuzzed JSON', () => {
  it('counts the levels of any JSON text exactly, brackets in strings and escapes included', () => {
    const nested = fc.letrec((tie) => ({
      value: fc.oneof(
        { depthSize: 'small', withCrossShrink: true },
        fc.json(),
        fc.array(tie('value'), { maxLength: 3 }),
        fc.dictionary(fc.string({ unit: anyUnit, maxLength: 4 }), tie('value'), { maxKeys: 3 }),
      ),
    })).value;
    fc.assert(
      fc.property(nested, fc.integer({ min: 0, max: 12 }), (value, max) => {
        tally.cases++;
        const text = typeof value === 'string' ? value : JSON.stringify(value);
        const depth = depthOf(JSON.parse(text));
        expect(isNestedDeeperThan(text, max)).toBe(depth > max);
        expect(isNestedDeeperThan(Buffer.from(text), max)).toBe(depth > max);
      }),
      { seed: 440_651, numRuns: 700 },
    );
  });

  const bound = fc.oneof(fc.constant(MAX_JSON_DEPTH), fc.integer({ min: 0, max: MAX_JSON_DEPTH }));
  it('lets no text by that parses into more levels than the bound, and reads bytes as it reads text', () => {
    fc.assert(
      fc.property(fc.oneof(hostileText, deepJson), bound, (text, max) => {
        tally.cases++;
        const deeper = isNestedDeeperThan(text, max);
        // Lone surrogates become U+FFFD in UTF-8: no ASCII byte appears or goes.
        expect(isNestedDeeperThan(Buffer.from(text), max)).toBe(deeper);
        let parsed: unknown;
        try {
          parsed = JSON.parse(text);
        } catch {
          return;
        }
        if (!deeper) expect(depthOf(parsed)).toBeLessThanOrEqual(max);
      }),
      { seed: 440_652, numRuns: 2000 },
    );
  });
});
