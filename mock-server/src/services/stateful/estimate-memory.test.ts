import { estimateMemory, estimateStringMemory } from './estimate-memory';

// What V8 holds for these values is measured by `npm run bench:memory` (src/bench/memory/main.ts), which compares
// each shape's estimate with the heap it takes; here the estimate is checked against the figures estimate-memory.ts
// documents from those measurements, so that a change of the counts that would undercount a shape fails at once.

const many = (count: number, make: (i: number) => string): string =>
  `{"items":[${Array.from({ length: count }, (_, i) => make(i)).join(',')}]}`;

/**
 * Bodies a client chooses freely, each as costly per byte as its kind can be, with what V8 holds for each of their
 * items by the figures estimate-memory.ts documents (`{}` 56, `[]` 32, an element's slot 8, a member of a key of
 * its own about 120, a string 16 and its characters, a double unboxed in its array), keys' own strings left out.
 */
const SHAPES: Array<[string, string, number, number]> = [
  ['empty objects', many(10_000, () => '{}'), 10_000, 56 + 8],
  ['empty arrays', many(10_000, () => '[]'), 10_000, 32 + 8],
  ['objects with a key of their own each', many(5_000, (i) => `{"k${i}":0}`), 5_000, 56 + 120 + 8],
  [
    'one object with many keys',
    `{${Array.from({ length: 5_000 }, (_, i) => `"k${i}":{}`).join(',')}}`,
    5_000,
    120 + 56,
  ],
  ['objects sharing their keys', many(5_000, (i) => `{"id":${i},"name":"n${i}","ok":true}`), 5_000, 56 + 24 + 8],
  ['short Latin-1 strings', many(10_000, (i) => `"${i}"`), 10_000, 16 + 8],
  ['two-byte strings', many(5_000, (i) => `"\u0100${i}"`), 5_000, 16 + 8 + 8],
  ['fractions', many(10_000, (i) => `${i}.5`), 10_000, 8],
  ['nested arrays of objects', many(2_000, () => '[[{}],[{}]]'), 2_000, 32 + 16 + 16 + 2 * (32 + 16 + 8 + 56) + 8],
];

describe('estimateMemory', () => {
  it.each(SHAPES)(
    'never counts less than V8 holds by its documented figures for %s, and at most eight times as much',
    (_name, text, items, bytesEach) => {
      // Parsed as a request body is, then copied as a stored item is (shallowly).
      const estimate = estimateMemory({ ...(JSON.parse(text) as object) });
      expect(estimate).toBeGreaterThanOrEqual(items * bytesEach);
      expect(estimate).toBeLessThan(items * bytesEach * 8);
    },
  );

  it('counts empty objects at about twenty times their JSON text, as V8 holds them', () => {
    const text = many(10_000, () => '{}');
    expect(estimateMemory(JSON.parse(text))).toBeGreaterThan(text.length * 20);
  });

  it('counts a string by its characters, two bytes each once one is beyond Latin-1', () => {
    expect(estimateStringMemory('a'.repeat(1000))).toBe(1016);
    expect(estimateStringMemory('é'.repeat(1000))).toBe(1016);
    expect(estimateStringMemory(`${'a'.repeat(999)}\u2028`)).toBe(2016);
  });

  it('walks a value nested 100,000 levels deep without running out of stack', () => {
    let deep: unknown = {};
    for (let i = 0; i < 100_000; i++) deep = [deep];
    expect(estimateMemory(deep)).toBe(100_000 * (48 + 8) + 64);
  });
});
