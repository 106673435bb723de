import fc from 'fast-check';
import { createServer, request, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { isRestbusError } from '@restbus/infra';
import { FuzzTally } from '@restbus/infra/testing';
import { readBody } from './read-body';

let server: Server;
let port: number;
const tally = new FuzzTally('parsers fuzz: read-body');

/** What the server read of one request: the body's bytes, or the code it was refused with. */
type Read = { body: Buffer } | { code: string };

beforeAll(async () => {
  server = createServer((req, res) => {
    readBody(req, Number(req.headers['x-limit'])).then(
      (body) => res.end(body),
      (err: unknown) => {
        if (!isRestbusError(err)) tally.crashes++;
        res.statusCode = 413;
        res.end(isRestbusError(err) ? err.code : 'crash');
      },
    );
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});

afterAll(async () => {
  await new Promise((resolve) => server.close(resolve));
  tally.record();
});

/** Sends the chunks one write each, with their length announced or chunked, and reads what the server read. */
function send(chunks: Buffer[], limit: number, announced: boolean): Promise<Read> {
  const length = chunks.reduce((sum, chunk) => sum + chunk.length, 0);
  const headers = { 'x-limit': String(limit), ...(announced && { 'content-length': String(length) }) };
  return new Promise((resolve, reject) => {
    const call = request({ port, host: '127.0.0.1', method: 'POST', headers }, (res) => {
      const parts: Buffer[] = [];
      res.on('data', (part: Buffer) => parts.push(part));
      res.on('end', () => {
        const body = Buffer.concat(parts);
        resolve(res.statusCode === 413 ? { code: body.toString() } : { body });
      });
    });
    // The server may answer and stop reading before the last write: that is its right.
    call.on('error', reject);
    for (const chunk of chunks) call.write(chunk);
    call.end();
  });
}

describe('readBody under fuzzed bodies', () => {
  it('gives back every byte of a body within the limit and refuses a larger one with BODY_TOO_LARGE', async () => {
    const chunk = fc.uint8Array({ maxLength: 2048 }).map((bytes) => Buffer.from(bytes));
    await fc.assert(
      fc.asyncProperty(
        fc.array(chunk, { maxLength: 6 }),
        fc.integer({ min: 0, max: 8192 }),
        fc.boolean(),
        async (chunks, limit, announced) => {
          tally.cases++;
          const whole = Buffer.concat(chunks);
          const read = await send(chunks, limit, announced);
          if (whole.length <= limit) expect(read).toEqual({ body: whole });
          else expect(read).toEqual({ code: 'BODY_TOO_LARGE' });
        },
      ),
      { seed: 440_671, numRuns: 100 },
    );
  });
});
