import fc from 'fast-check';
import type { HttpMethod } from '@restbus/infra';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { testEndpoint } from '../__tests__/start-test-gateway';
import { createRouteTable, type Lookup } from './route-table';
import { compileSegmentPattern, matchSegmentPattern } from './segment-pattern';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: anyUnit, maxLength: 3 })), { maxLength: 10 })
  .map((pieces) => pieces.join(''));
const hostilePath = hostileText.map((text) => (text.startsWith('/') ? text : `/${text}`));

const endpoint = (method: HttpMethod, uri: string) => testEndpoint(method, uri, { responses: {} });
const answerFor = () => async () => {};
const endpoints = [
  endpoint('get', '/persons'),
  endpoint('get', '/persons/{personId}'),
  endpoint('get', '/persons/me'),
  endpoint('get', '/files/{name}.json'),
  endpoint('get', '/v{major}-{minor}-{patch}/x'),
  endpoint('get', '/a/{x}/b/{y}'),
];
const tables = [
  createRouteTable(endpoints, { basePath: '/', answerFor }),
  createRouteTable(endpoints, { basePath: '/api/v1', answerFor }),
];

const tally = new FuzzTally('parsers fuzz: route-table');
const run = { seed: 440_601, numRuns: 400 };

afterAll(() => {
  tally.record();
});

/** The former matcher of a mixed segment: one case-insensitive regular expression, lazy parameters. */
function formerMatch(template: string, segment: string): string[] | undefined {
  const source = template
    .split(/(\{[^}]+\})/)
    .map((part) => (/^\{[^}]+\}$/.test(part) ? '([^/]+?)' : part.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')))
    .join('');
  return new RegExp(`^${source}$`, 'i').exec(segment)?.slice(1);
}

const KINDS = new Set(['found', 'options', 'method-not-allowed', 'not-found', 'bad-path']);

describe('the route table under fuzzed paths', () => {
  it('answers any path with one of its lookups, and found parameters are own string values', () => {
    fc.assert(
      fc.property(fc.constantFrom('GET', 'POST', 'OPTIONS', 'HEAD', '__proto__'), hostilePath, (method, path) => {
        tally.cases++;
        for (const table of tables) {
          const found: Lookup = table.lookup(method, path);
          expect(KINDS.has(found.kind)).toBe(true);
          if (found.kind !== 'found') continue;
          expect(Object.getPrototypeOf(found.params)).toBe(Object.prototype);
          expect(Object.keys(found.params)).toEqual(found.endpoint.paramNames);
          for (const value of Object.values(found.params)) expect(typeof value).toBe('string');
        }
      }),
      run,
    );
  });

  it('calls a path with a malformed percent-encoding in a segment a bad path', () => {
    const broken = fc.constantFrom('%', '%zz', '%C0%AF', '%ED%A0%80', '%E2%80', '%FF');
    fc.assert(
      fc.property(fc.string({ maxLength: 5 }), broken, (before, escape) => {
        tally.cases++;
        const segment = `${encodeURIComponent(before)}${escape}`;
        expect(tables[0].lookup('GET', `/persons/${segment}`).kind).toBe('bad-path');
      }),
      run,
    );
  });

  it('gives back the text a client percent-encoded into a parameter', () => {
    const text = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 12 });
    fc.assert(
      fc.property(text, (value) => {
        tally.cases++;
        fc.pre(value.toLowerCase() !== 'me');
        const person = tables[0].lookup('GET', `/persons/${encodeURIComponent(value)}`);
        expect(person).toMatchObject({ kind: 'found', params: { personId: value } });
        const prefixed = tables[1].lookup('GET', `/api/v1/persons/${encodeURIComponent(value)}/`);
        expect(prefixed).toMatchObject({ kind: 'found', params: { personId: value } });
        if (value.includes('/')) return;
        const file = tables[0].lookup('GET', `/files/${encodeURIComponent(value)}.json`);
        expect(file).toMatchObject({ kind: 'found', params: { name: value } });
      }),
      run,
    );
  });

  it('matches a mixed segment as the former regular expression did, with the same values', () => {
    // Letters whose case folding differs between toLowerCase and a regular expression's `i`, or changes length.
    const letters = ['a', 'B', '-', '.', 'é', 'É', 'ß', 'ſ', 'S', 'İ', 'i', 'K', 'k', '{', '}'];
    const template = fc
      .array(fc.oneof(fc.constantFrom(...letters), fc.constant('{p}')), { minLength: 1, maxLength: 6 })
      .map((parts) => parts.join(''))
      .filter((text) => text.includes('{') && !/^\{[^}]+\}$/.test(text));
    const segment = fc.string({ unit: fc.constantFrom(...letters, '/', 'x'), maxLength: 10 });
    fc.assert(
      fc.property(template, segment, (written, sent) => {
        tally.cases++;
        expect(matchSegmentPattern(compileSegmentPattern(written), sent)).toEqual(formerMatch(written, sent));
      }),
      { seed: 440_602, numRuns: 3000 },
    );
  });
});
