import fc from 'fast-check';
import { isRestbusError } from '@restbus/infra';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { compileUriTemplate } from './compile-uri-template';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: anyUnit, maxLength: 3 })), { maxLength: 10 })
  .map((pieces) => pieces.join(''));
const TEMPLATES = [
  '/users/{id}',
  '/files/{name}.{ext}',
  '/v{major}-{minor}-{patch}/x',
  '/{constructor}/{toString}',
  '/',
];

const tally = new FuzzTally('parsers fuzz: compile-uri-template');
afterAll(() => {
  tally.record();
});

describe('compileUriTemplate under fuzzed templates and paths', () => {
  it('compiles any template or refuses it with PROJECT_INVALID, and matches any path to its own names', () => {
    fc.assert(
      fc.property(fc.oneof(fc.constantFrom(...TEMPLATES), hostileText), hostileText, (template, path) => {
        tally.cases++;
        let matcher;
        try {
          matcher = compileUriTemplate('/rest', template);
        } catch (err) {
          if (!isRestbusError(err)) tally.crashes++;
          expect(isRestbusError(err) && err.code).toBe('PROJECT_INVALID');
          return;
        }
        const names = [...template.matchAll(/\{([^}]*)\}/g)].map((found) => found[1]);
        for (const sent of [path, `/rest${path}`, `/rest/${path}`]) {
          const params = matcher.match(sent);
          if (params === undefined) continue;
          expect(Object.keys(params).sort()).toEqual([...new Set(names)].filter((name) => name !== '__proto__').sort());
          for (const value of Object.values(params)) expect(typeof value).toBe('string');
        }
        expect(tally.prototypeIntact()).toBe(true);
      }),
      { seed: 440_6101, numRuns: 1500 },
    );
  });

  it('gives back the values a client percent-encoded into the parameters', () => {
    const value = fc.string({ unit: 'grapheme', minLength: 1, maxLength: 10 });
    const noDot = value.filter((text) => !text.includes('.'));
    fc.assert(
      fc.property(value, value, noDot, (id, name, ext) => {
        tally.cases++;
        const users = compileUriTemplate('/rest', '/users/{id}');
        expect(users.match(`/REST/users/${encodeURIComponent(id)}/`)).toEqual({ id });
        const files = compileUriTemplate('', '/files/{name}.{ext}');
        expect(files.match(`/files/${encodeURIComponent(name)}.${encodeURIComponent(ext)}`)).toEqual({ name, ext });
      }),
      { seed: 440_6102, numRuns: 600 },
    );
  });
});
