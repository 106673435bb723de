import fc from 'fast-check';
import { isRestbusError } from '../../errors/restbus-error';
import { HOSTILE_PIECES, FuzzTally } from '../../testing';
import { readResumePoint } from './read-resume-point';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(
    fc.oneof(
      fc.constantFrom(...HOSTILE_PIECES, '0', '00', '-0', '1e3', '0x1f', '9007199254740993', 'Infinity', 'NaN'),
      fc.string({ unit: anyUnit, maxLength: 3 }),
      fc.bigInt({ min: -(2n ** 64n), max: 2n ** 64n }).map(String),
    ),
    { maxLength: 5 },
  )
  .map((pieces) => pieces.join(''));

const tally = new FuzzTally('parsers fuzz: read-resume-point');
afterAll(() => tally.record());

/** The resume point read, or the code of the error it was refused with; a thrown non-RestbusError is a crash. */
function read(header: string | undefined, query: string): number | string | undefined {
  try {
    return readResumePoint(header === undefined ? {} : { 'last-event-id': header }, query);
  } catch (err) {
    if (!isRestbusError(err)) tally.crashes++;
    return isRestbusError(err) ? err.code : 'crash';
  }
}

describe('readResumePoint under fuzzed event ids', () => {
  it('reads any Last-Event-ID or ?since= as a whole number the stream could have given, or refuses it with 400', () => {
    fc.assert(
      fc.property(fc.option(hostileText, { nil: undefined }), hostileText, (header, since) => {
        tally.cases++;
        for (const query of [`since=${since}`, `since=${encodeURIComponent(Buffer.from(since).toString())}`, since]) {
          const found = read(header, query);
          if (typeof found === 'number') {
            expect(Number.isSafeInteger(found) && found >= 0).toBe(true);
            // What was read is what the client wrote, spelled one way only.
            const written =
              header !== undefined && header !== '' ? header.trim() : new URLSearchParams(query).get('since');
            expect(String(found)).toBe(written);
          } else if (found !== undefined) expect(found).toBe('REQUEST_INVALID');
        }
      }),
      { seed: 440_661, numRuns: 1500 },
    );
  });

  it('gives back every sequence number a stream can send, from the header or the query', () => {
    fc.assert(
      fc.property(fc.maxSafeNat(), fc.constantFrom('', ' ', '\t'), (sequence, space) => {
        tally.cases++;
        expect(read(`${space}${sequence}${space}`, '')).toBe(sequence);
        expect(read(undefined, new URLSearchParams({ a: '1', since: String(sequence) }).toString())).toBe(sequence);
      }),
      { seed: 440_662, numRuns: 500 },
    );
  });
});
