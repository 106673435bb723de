import fc from 'fast-check';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { matchesMediaRange, mediaTypeOf } from './matches-media-range';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: anyUnit, maxLength: 3 })), { maxLength: 10 })
  .map((pieces) => pieces.join(''));
const token = fc.stringMatching(/^[a-zA-Z0-9][a-zA-Z0-9!#$&^_.+-]{0,10}$/);
const mediaType = fc.tuple(token, token).map(([kind, sub]) => `${kind}/${sub}`);
const parameters = fc
  .array(fc.tuple(token, token), { maxLength: 2 })
  .map((pairs) => pairs.map(([k, v]) => `; ${k}=${v}`).join(''));

const tally = new FuzzTally('parsers fuzz: matches-media-range');
afterAll(() => tally.record());

describe('matchesMediaRange under fuzzed media types', () => {
  it('answers any type against any range, and normalises a type once for good', () => {
    fc.assert(
      fc.property(hostileText, hostileText, (type, range) => {
        tally.cases++;
        expect(typeof matchesMediaRange(type, range)).toBe('boolean');
        expect(mediaTypeOf(mediaTypeOf(type))).toBe(mediaTypeOf(type));
        // Any range matches what */* does not have to: everything.
        expect(matchesMediaRange(type, `${range},*/*`)).toBe(true);
      }),
      { seed: 440_631, numRuns: 1500 },
    );
  });

  it('matches a type to itself, its type range and */*, whatever its parameters and case', () => {
    fc.assert(
      fc.property(mediaType, parameters, parameters, fc.boolean(), (type, sent, written, upper) => {
        tally.cases++;
        const spelled = upper ? type.toUpperCase() : type;
        const kind = type.split('/')[0];
        for (const range of [type, `${kind}/*`, '*/*', `text/x-none, ${type}${written}`]) {
          expect(matchesMediaRange(`${spelled}${sent}`, range)).toBe(true);
        }
        expect(matchesMediaRange(`${spelled}${sent}`, `${kind}x/*, ${kind}/${type.split('/')[1]}x`)).toBe(false);
      }),
      { seed: 440_632, numRuns: 800 },
    );
  });
});
