import { collectGarbage } from '@restbus/infra/testing';
import { estimateMemory, estimateStringMemory } from './estimate-memory';

/** The heap once collecting frees no more (a worker that ran other suites may hold garbage several rounds deep). */
const settledHeap = (): number => {
  let last = Infinity;
  for (let round = 0; round < 10; round++) {
    collectGarbage();
    const used = process.memoryUsage().heapUsed;
    if (last - used < 64 * 1024) return used;
    last = used;
  }
  return last;
};

/** `text` parsed as a request body is, then copied as a stored item is (shallowly): only the copy stays. */
const parseAsStored = (text: string): unknown => ({ ...(JSON.parse(text) as object) });

/** What V8 holds for `text` once parsed and stored: the median of three measurements, each after the heap settled. */
function measureParsed(text: string): { held: number; value: unknown } {
  const measurements: number[] = [];
  let value: unknown;
  for (let i = 0; i < 3; i++) {
    value = undefined;
    const before = settledHeap();
    value = parseAsStored(text);
    measurements.push(settledHeap() - before);
  }
  return { held: measurements.sort((a, b) => a - b)[1], value };
}

// The heap moves by a few hundred bytes between two readings on its own (feedback vectors, compiled code).
const NOISE = 4096;

const many = (count: number, make: (i: number) => string): string =>
  `{"items":[${Array.from({ length: count }, (_, i) => make(i)).join(',')}]}`;

// Bodies a client chooses freely, each as costly per byte as its kind can be.
const SHAPES: Array<[string, string]> = [
  ['empty objects', many(100_000, () => '{}')],
  ['empty arrays', many(100_000, () => '[]')],
  ['objects with a key of their own each', many(50_000, (i) => `{"k${i}":0}`)],
  ['one object with many keys', `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":{}`).join(',')}}`],
  ['objects sharing their keys', many(50_000, (i) => `{"id":${i},"name":"n${i}","ok":true}`)],
  ['short Latin-1 strings', many(100_000, (i) => `"${i}"`)],
  ['two-byte strings', many(50_000, (i) => `"\u0100${i}"`)],
  ['fractions', many(100_000, (i) => `${i}.5`)],
  ['nested arrays of objects', many(20_000, () => '[[{}],[{}]]')],
];

describe('estimateMemory', () => {
  it.each(SHAPES)('never counts less than V8 holds for %s, and at most eight times as much', (_name, text) => {
    const { held, value } = measureParsed(text);
    const estimate = estimateMemory(value);
    expect(estimate).toBeGreaterThanOrEqual(held - NOISE);
    expect(estimate).toBeLessThan(held * 8);
  });

  it('counts empty objects at about twenty times their JSON text, as V8 holds them', () => {
    const text = many(100_000, () => '{}');
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
