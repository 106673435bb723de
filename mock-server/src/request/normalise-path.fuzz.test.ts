import fc from 'fast-check';
import type { Request } from 'express';
import { isRestbusError } from '@restbus/infra';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { createLoginCheck, createOpenPathCheck } from './check-login';
import { normalisePath, type NormalisedPath } from './normalise-path';
import { MAX_MOCK_DELAY_MS, readMockDelay } from './read-mock-delay';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: anyUnit, maxLength: 3 })), { maxLength: 10 })
  .map((pieces) => pieces.join(''));
const hostilePath = hostileText.map((text) => `/${text}`);
// A path segment of the characters RFC 3986 calls unreserved, each maybe percent-encoded.
const unreserved = fc.constantFrom(...'aZz09-._~'.split(''));
const encodedUnreserved = fc
  .array(fc.tuple(unreserved, fc.boolean(), fc.boolean()), { minLength: 1, maxLength: 8 })
  .map((units) => ({
    plain: units.map(([char]) => char).join(''),
    encoded: units
      .map(([char, encode, lower]) => {
        if (!encode) return char;
        const escape = `%${char.charCodeAt(0).toString(16).toUpperCase()}`;
        return lower ? escape.toLowerCase() : escape;
      })
      .join(''),
  }));

const tally = new FuzzTally('parsers fuzz: normalise-path');
afterAll(() => tally.record());

/** The path normalised, or the code it was refused with; a thrown non-RestbusError is a crash. */
function normalise(raw: string): NormalisedPath | string {
  try {
    return normalisePath(raw);
  } catch (err) {
    if (!isRestbusError(err)) tally.crashes++;
    return isRestbusError(err) ? err.code : 'crash';
  }
}

describe('the mock server request parsers under fuzzed input', () => {
  it('normalises any path once for good, never longer, without dot segments, empty segments or %00', () => {
    fc.assert(
      fc.property(hostilePath, (raw) => {
        tally.cases++;
        const found = normalise(raw);
        if (typeof found === 'string') {
          expect(found).toBe('BAD_REQUEST');
          return;
        }
        expect(normalise(found.path)).toEqual(found);
        expect(found.path.length).toBeLessThanOrEqual(raw.length);
        expect(found.path).not.toMatch(/\/\/|%00|(^|\/)\.\.?(\/|$)/);
        expect(found.hasEncodedSeparator).toBe(/\\|%2F|%5C/i.test(found.path));
      }),
      { seed: 440_681, numRuns: 1000 },
    );
  });

  it('reads a percent-encoded unreserved character as the character itself', () => {
    fc.assert(
      fc.property(fc.array(encodedUnreserved, { minLength: 1, maxLength: 4 }), (segments) => {
        tally.cases++;
        const plain = segments.map((segment) => segment.plain);
        fc.pre(plain.every((segment) => segment !== '.' && segment !== '..'));
        const raw = `/${segments.map((segment) => segment.encoded).join('/')}`;
        expect(normalise(raw)).toEqual({ path: `/${plain.join('/')}`, hasEncodedSeparator: false });
      }),
      { seed: 440_682, numRuns: 500 },
    );
  });

  it('reads any X-Mock-Delay as milliseconds within the bound or refuses it with BAD_REQUEST', () => {
    const header = fc.oneof(hostileText, fc.integer({ min: -1, max: 2 * MAX_MOCK_DELAY_MS }).map(String));
    fc.assert(
      fc.property(header, fc.constantFrom('', ' ', '\t'), (text, space) => {
        tally.cases++;
        const sent = `${space}${text}${space}`;
        let delay: number | string;
        try {
          delay = readMockDelay({ headers: { 'x-mock-delay': sent } } as unknown as Request);
        } catch (err) {
          if (!isRestbusError(err)) tally.crashes++;
          expect(isRestbusError(err) && err.code).toBe('BAD_REQUEST');
          return;
        }
        expect(Number.isInteger(delay) && delay >= 0 && delay <= MAX_MOCK_DELAY_MS).toBe(true);
        expect(delay).toBe(Number(text));
      }),
      { seed: 440_683, numRuns: 1000 },
    );
  });

  it('checks any Authorization header without throwing, admitting only the credentials', () => {
    const login = createLoginCheck({ user: 'luke', pass: 's3cr:t' });
    const basic = (text: string) => `Basic ${Buffer.from(text).toString('base64')}`;
    fc.assert(
      fc.property(hostileText, fc.boolean(), (text, encoded) => {
        tally.cases++;
        const authorization = encoded ? basic(text) : text;
        const admitted = login({ headers: { authorization } } as unknown as Request);
        expect(admitted).toBe(authorization === basic('luke:s3cr:t'));
      }),
      { seed: 440_684, numRuns: 1000 },
    );
  });

  it('opens a path only under an open prefix, at a segment boundary', () => {
    const isOpen = createOpenPathCheck(['/rest/monitoring', '/Public/', 42, null]);
    fc.assert(
      fc.property(hostilePath, (path) => {
        tally.cases++;
        const folded = path.toLowerCase();
        const expected = ['/rest/monitoring', '/public'].some(
          (open) => folded === open || folded.startsWith(`${open}/`),
        );
        expect(isOpen(path)).toBe(expected);
        expect(isOpen(`/REST/monitoring${path}`)).toBe(true);
      }),
      { seed: 440_685, numRuns: 1000 },
    );
  });
});
