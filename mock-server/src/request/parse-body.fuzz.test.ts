import fc from 'fast-check';
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRestbusError } from '@restbus/infra';
import { HOSTILE_PIECES, FuzzTally } from '@restbus/infra/testing';
import { createBodyParser } from './parse-body';

const LIMIT = 4096;
const anyUnit = fc.nat(0xffff).map((code) => String.fromCharCode(code));
const hostileText = fc
  .array(fc.oneof(fc.constantFrom(...HOSTILE_PIECES), fc.string({ unit: anyUnit, maxLength: 3 })), { maxLength: 12 })
  .map((pieces) => pieces.join(''));
const contentType = fc.constantFrom(
  'application/json',
  'application/problem+json; charset=latin1',
  'application/x-www-form-urlencoded',
  'application/x-www-form-urlencoded; charset=utf-16',
  'text/plain; charset=utf-8',
  'text/plain; charset=nonsense',
  'application/octet-stream',
);

let server: Server;
let base: string;
const tally = new FuzzTally('parsers fuzz: parse-body');

beforeAll(async () => {
  const parse = createBodyParser(LIMIT);
  const app = express();
  app.post('/echo', (req, res) => {
    parse(req, res).then(
      () => res.json({ body: req.body as unknown }),
      (err: unknown) => {
        if (!isRestbusError(err)) tally.crashes++;
        res.status(isRestbusError(err) ? err.status : 500).json({ code: isRestbusError(err) ? err.code : 'crash' });
      },
    );
  });
  server = app.listen(0, '127.0.0.1');
  await new Promise((resolve) => server.once('listening', resolve));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  tally.record();
});

const post = (body: string | Uint8Array, type: string) =>
  fetch(`${base}/echo`, { method: 'POST', headers: { 'content-type': type }, body });

describe('the mock server body parser under fuzzed bodies', () => {
  it('reads any body of any type, or refuses it with a 4xx RestbusError', async () => {
    const body = fc.oneof(hostileText, fc.uint8Array({ maxLength: 64 }), fc.constant('x'.repeat(LIMIT + 1)));
    await fc.assert(
      fc.asyncProperty(body, contentType, async (sent, type) => {
        tally.cases++;
        const answer = await post(sent, type);
        expect(answer.status === 200 || (answer.status >= 400 && answer.status < 500)).toBe(true);
        expect(tally.prototypeIntact()).toBe(true);
        await answer.arrayBuffer();
      }),
      { seed: 440_6121, numRuns: 120 },
    );
  });

  it('gives back any JSON value a client sent, __proto__ keys as data', async () => {
    const key = fc.oneof(fc.constantFrom('__proto__', 'constructor', 'toString'), fc.string({ maxLength: 5 }));
    const value = fc
      .jsonValue({ maxDepth: 3 })
      .chain((item) =>
        fc
          .dictionary(key, fc.constant(item), { maxKeys: 3 })
          .map((object) => ({ ...JSON.parse(JSON.stringify(object)), item })),
      );
    await fc.assert(
      fc.asyncProperty(value, async (sent) => {
        tally.cases++;
        const text = JSON.stringify(sent);
        const answer = await post(text, 'application/json');
        expect(answer.status).toBe(200);
        expect(JSON.stringify(((await answer.json()) as { body: unknown }).body)).toBe(text);
      }),
      { seed: 440_6122, numRuns: 100 },
    );
  });
});
