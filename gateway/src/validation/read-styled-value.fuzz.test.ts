import fc from 'fast-check';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import type { ApiEncoding } from '@restbus/openapi';
import { readStyledValue } from './read-styled-value';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES, '|', '\t'), fc.string({ unit: anyUnit, maxLength: 3 })), {
    maxLength: 12,
  })
  .map((pieces) => pieces.join(''));
// A field as a URL-encoded form or a query reads it: one text, a repeated field's texts, or brackets' objects.
const fieldValue = fc.oneof(
  hostileText,
  fc.array(hostileText, { maxLength: 5 }),
  fc.dictionary(hostileText, hostileText, { maxKeys: 3 }),
);
const STYLES = ['form', 'spaceDelimited', 'pipeDelimited', 'tabDelimited', 'deepObject', 'simple'];
const encoding: fc.Arbitrary<ApiEncoding | undefined> = fc.option(
  fc.record(
    { style: fc.constantFrom(...STYLES, 'constructor', 'toString', '__proto__'), explode: fc.boolean() },
    { requiredKeys: [] },
  ),
  { nil: undefined },
);
const schema = fc.constantFrom(
  { type: 'array' },
  { type: 'object' },
  { type: ['array', 'null'] },
  { type: 'string' },
  {},
  undefined,
  null,
);
const DELIMITERS: Record<string, string> = { form: ',', spaceDelimited: ' ', pipeDelimited: '|', tabDelimited: '\t' };

const tally = new FuzzTally('parsers fuzz: read-styled-value');

afterAll(() => {
  tally.record();
});

/** The characters a value is made of: what bounds the items cutting it can give. */
const lengthOf = (value: unknown): number =>
  typeof value === 'string' ? value.length + 1 : Array.isArray(value) ? value.reduce((n, v) => n + lengthOf(v), 0) : 1;

describe('readStyledValue under fuzzed fields', () => {
  it('reads any field with any encoding into no more items than its text has characters, and no prototype', () => {
    fc.assert(
      fc.property(fieldValue, schema, encoding, (value, written, encoded) => {
        tally.cases++;
        const read = readStyledValue(value, written, encoded);
        if (Array.isArray(read)) expect(read.length).toBeLessThanOrEqual(lengthOf(value));
        if (read !== value && typeof read === 'object' && read !== null && !Array.isArray(read)) {
          expect(Object.getPrototypeOf(read)).toBeNull();
          expect(Object.keys(read).length).toBeLessThanOrEqual(lengthOf(value));
        }
        expect(tally.prototypeIntact()).toBe(true);
      }),
      { seed: 440_621, numRuns: 1500 },
    );
  });

  it('gives back the list its style joined, and the object the form style wrote as keys and values', () => {
    const style = fc.constantFrom(...Object.keys(DELIMITERS));
    fc.assert(
      fc.property(style, fc.array(hostileText, { minLength: 1, maxLength: 6 }), (written, items) => {
        tally.cases++;
        const delimiter = DELIMITERS[written];
        const plain = items.map((item) => item.split(delimiter).join(''));
        const encoded = { style: written, explode: false };
        expect(readStyledValue(plain.join(delimiter), { type: 'array' }, encoded)).toEqual(plain);
      }),
      { seed: 440_622, numRuns: 500 },
    );
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString'), hostileText);
    fc.assert(
      fc.property(fc.dictionary(key, hostileText, { maxKeys: 5 }), (sent) => {
        tally.cases++;
        const plain = Object.entries(sent).map(([name, value]) => [name.replace(/,/g, ''), value.replace(/,/g, '')]);
        fc.pre(new Set(plain.map(([name]) => name)).size === plain.length && plain.length > 0);
        const read = readStyledValue(plain.flat().join(','), { type: 'object' }, { style: 'form', explode: false });
        expect(Object.getPrototypeOf(read)).toBeNull();
        expect(Object.entries(read as object)).toEqual(plain);
      }),
      { seed: 440_623, numRuns: 500 },
    );
  });

  it('leaves a field as read when its style is no style but the name of an object property', () => {
    for (const style of ['constructor', 'toString', '__proto__', 'hasOwnProperty']) {
      expect(readStyledValue('a,b', { type: 'array' }, { style, explode: false })).toBe('a,b');
    }
  });
});
