import fc from 'fast-check';
import { isRestbusError, type QueryValue } from '@restbus/infra';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { MAX_QUERY_DEPTH, parseQuery } from './parse-query';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: anyUnit, maxLength: 3 })), { maxLength: 12 })
  .map((pieces) => pieces.join(''));
// Keys and values of query text, and the `&` and `=` that join them, so that most cases are many fields.
const hostileQuery = fc
  .array(fc.tuple(hostileText, fc.constantFrom('=', '', '=='), hostileText), { maxLength: 8 })
  .map((fields) => fields.map(([key, equals, value]) => `${key}${equals}${value}`).join('&'));

const tally = new FuzzTally('parsers fuzz: parse-query');

afterAll(() => {
  tally.record();
});

/** The strings in a parsed query, and whether every object in it has no prototype at all. */
function walk(value: QueryValue, depth = 0): { leaves: number; depth: number; prototypeFree: boolean } {
  if (typeof value === 'string') return { leaves: 1, depth, prototypeFree: true };
  const prototypeFree = Array.isArray(value) || Object.getPrototypeOf(value) === null;
  const inner = Object.values(value).map((item) => walk(item, depth + 1));
  return {
    leaves: inner.reduce((sum, found) => sum + found.leaves, 0),
    depth: Math.max(depth, ...inner.map((found) => found.depth)),
    prototypeFree: prototypeFree && inner.every((found) => found.prototypeFree),
  };
}

function parseOrRefuse(text: string): Record<string, QueryValue> | undefined {
  try {
    return parseQuery(text);
  } catch (err) {
    if (!isRestbusError(err) || err.code !== 'REQUEST_INVALID') tally.crashes++;
    expect(isRestbusError(err) && err.code).toBe('REQUEST_INVALID');
    return undefined;
  }
}

describe('parseQuery under fuzzed query strings', () => {
  it('reads any text or refuses it with REQUEST_INVALID, into prototype-free objects no bigger than the text', () => {
    fc.assert(
      fc.property(fc.oneof(hostileText, hostileQuery), (text) => {
        tally.cases++;
        const query = parseOrRefuse(text);
        if (query === undefined) return;
        const found = walk(query);
        expect(found.prototypeFree).toBe(true);
        // One value per `&`-separated field at most. Keys nest no deeper than the top-level key, the bound's
        // bracketed keys and what remains as one key (`a[b][c][d][e][f][g][h]`: a, b … f, `[g][h]`); a key sent
        // twice in two shapes (`a=1&a[b]=2`) is a list of both, one more level at most per key.
        expect(found.leaves).toBeLessThanOrEqual(text.split('&').length);
        expect(found.depth).toBeLessThanOrEqual(2 * (MAX_QUERY_DEPTH + 2));
        expect(tally.prototypeIntact()).toBe(true);
        expect(({} as Record<string, unknown>).polluted).toBeUndefined();
      }),
      { seed: 440_611, numRuns: 800 },
    );
  });

  it('gives back what URLSearchParams encoded: one value as a string, a repeated key as a list', () => {
    // qs drops `__proto__` keys (parse-query.test.ts); other prototype names are data.
    const key = fc.oneof(
      fc.constantFrom('constructor', 'prototype', 'hasOwnProperty', 'toString'),
      fc
        .string({ unit: 'grapheme', minLength: 1, maxLength: 8 })
        .filter((text) => !/[[\]]/.test(text) && text !== '__proto__'),
    );
    const value = fc.string({ unit: 'grapheme', maxLength: 8 });
    const fields = fc.dictionary(key, fc.array(value, { minLength: 1, maxLength: 4 }), { maxKeys: 6 });
    fc.assert(
      fc.property(fields, (sent) => {
        tally.cases++;
        const params = new URLSearchParams();
        for (const [name, values] of Object.entries(sent)) for (const item of values) params.append(name, item);
        const query = parseQuery(params.toString());
        expect(Object.keys(query).sort()).toEqual(Object.keys(sent).sort());
        for (const [name, values] of Object.entries(sent)) {
          expect(Object.prototype.hasOwnProperty.call(query, name)).toBe(true);
          expect(query[name]).toEqual(values.length === 1 ? values[0] : values);
        }
      }),
      { seed: 440_612, numRuns: 300 },
    );
  });
});
