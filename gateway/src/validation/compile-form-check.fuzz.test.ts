import fc from 'fast-check';
import type { IncomingRequest } from '@restbus/infra';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { testEndpoint } from '../__tests__/start-test-gateway';
import { compileRequestChecks } from './create-request-validator';

const FORM = 'application/x-www-form-urlencoded';
const MULTIPART = 'multipart/form-data';

const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: anyUnit, maxLength: 3 })), { maxLength: 10 })
  .map((pieces) => pieces.join(''));
const hostileForm = fc
  .array(fc.tuple(hostileText, fc.constantFrom('=', ''), hostileText), { maxLength: 8 })
  .map((fields) => fields.map(([key, equals, value]) => `${key}${equals}${value}`).join('&'));
// Parts with hostile names, headers and contents under a boundary that may or may not be the one announced.
const hostileMultipart = fc
  .array(
    fc.tuple(hostileText, fc.constantFrom('', '; filename="f"', '\r\nContent-Type: application/json'), hostileText),
    {
      maxLength: 5,
    },
  )
  .chain((parts) =>
    fc.tuple(fc.constantFrom('b', 'x', '"b"', ''), fc.constantFrom('--b--\r\n', '', '--b')).map(([boundary, end]) => ({
      type: `${MULTIPART}; boundary=${boundary}`,
      body:
        parts
          .map(
            ([name, extra, value]) =>
              `--b\r\nContent-Disposition: form-data; name="${name}"${extra}\r\n\r\n${value}\r\n`,
          )
          .join('') + end,
    })),
  );

const fields = {
  type: 'object',
  properties: {
    ids: { type: 'array', items: { type: 'integer' } },
    color: { type: 'object' },
    meta: { type: 'object', properties: { n: { type: 'integer' } } },
    note: { type: 'string' },
  },
  additionalProperties: { type: 'string' },
};
const form = testEndpoint('post', '/forms', {
  requestBody: {
    content: {
      [FORM]: { schema: fields, encoding: { ids: { style: 'form', explode: false }, color: { explode: false } } },
      [MULTIPART]: { schema: fields, encoding: { meta: { contentType: 'application/json' } } },
    },
  },
});
const check = compileRequestChecks([form]).checks.get(form)!;

const request = (body: string, type: string): IncomingRequest => ({
  cookies: {},
  headers: { 'content-type': type },
  parameters: { uri: {}, query: {} },
  body,
});

const tally = new FuzzTally('parsers fuzz: compile-form-check');

afterAll(() => {
  tally.record();
});

/** The check's answer, counting as a crash anything but an answer: a refusal or none. */
async function answer(call: IncomingRequest): Promise<{ problems: Array<{ location: string }> } | undefined> {
  try {
    return await check(call);
  } catch (err) {
    tally.crashes++;
    throw err;
  }
}

describe('the form body check under fuzzed bodies', () => {
  it('answers any URL-encoded or multipart body with a refusal of at most 100 problems, or none', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.oneof(
          hostileForm.map((body) => ({ type: FORM, body })),
          hostileMultipart,
        ),
        async (sent) => {
          tally.cases++;
          const refusal = await answer(request(sent.body, sent.type));
          if (refusal !== undefined) {
            expect(refusal.problems.length).toBeGreaterThan(0);
            expect(refusal.problems.length).toBeLessThanOrEqual(100);
            for (const problem of refusal.problems) expect(problem.location).toMatch(/^body/);
          }
          expect(tally.prototypeIntact()).toBe(true);
          expect(({} as Record<string, unknown>).polluted).toBeUndefined();
        },
      ),
      { seed: 440_641, numRuns: 500 },
    );
  });

  it('takes any fields a client encodes as text, whatever their names, as URL-encoded or multipart bodies', async () => {
    const name = fc.oneof(
      fc.constantFrom('constructor', 'toString', 'hasOwnProperty', 'prototype', 'valueOf'),
      fc.string({ unit: 'grapheme', minLength: 1, maxLength: 8 }),
    );
    const sent = fc
      .dictionary(name, fc.string({ unit: 'grapheme', maxLength: 8 }), { maxKeys: 5 })
      .map((entries) => Object.entries(entries).filter(([key]) => !/[[\]]/.test(key) && key !== '__proto__'))
      .map((entries) => entries.filter(([key]) => !['ids', 'color', 'meta', 'note'].includes(key)));
    await fc.assert(
      fc.asyncProperty(sent, async (entries) => {
        tally.cases++;
        fc.pre(entries.length > 0);
        const encoded = new URLSearchParams(entries).toString();
        expect(await answer(request(encoded, FORM))).toBeUndefined();
        const parts = new FormData();
        for (const [key, value] of entries) parts.append(key, value);
        const multipart = new Response(parts);
        const type = multipart.headers.get('content-type')!;
        expect(await answer(request(await multipart.text(), type))).toBeUndefined();
      }),
      { seed: 440_642, numRuns: 300 },
    );
  });
});
