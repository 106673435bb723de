import { Writable } from 'node:stream';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsServer, waitFor, type TestNatsServer } from '@restbus/infra/testing';
import { DEFAULT_BODY_LIMIT } from '../config';
import { keepBodyLimitWithinPayload } from './keep-body-limit-within-payload';

let server: TestNatsServer;
let link: NatsLink;
const silent = pino({ level: 'silent' });

beforeAll(async () => {
  // NATS's own default max_payload, 1 MiB, as a nats-server started with no configuration has it.
  server = await startNatsServer();
  link = createNatsLink({ servers: server.url, name: 'body-limit-test', logger: silent });
  await link.ready();
});
afterAll(async () => {
  await link?.drain();
  await server?.dispose();
});

/** The limit the gateway is left with and the level it was said at, for a configured limit. */
async function lowerLimit(bodyLimit: number): Promise<{ limit: number; level?: number }> {
  const lines: Array<{ level: number; msg: string }> = [];
  const logger = pino(
    { level: 'info' },
    new Writable({
      write: (chunk: Buffer, _encoding, done) => {
        lines.push(JSON.parse(chunk.toString()) as { level: number; msg: string });
        done();
      },
    }),
  );
  let limit = bodyLimit;
  keepBodyLimitWithinPayload(link, { setBodyLimit: (lowered) => (limit = lowered) }, bodyLimit, logger);
  await waitFor(() => limit !== bodyLimit, { what: 'the body limit lowered' });
  await waitFor(() => lines.length > 0, { what: 'the line saying so' });
  return { limit, level: lines.find((line) => line.msg.startsWith('body limit lowered'))?.level };
}

describe('keepBodyLimitWithinPayload', () => {
  it('lowers the default limit below a default max_payload and says so at info: nobody asked for more', async () => {
    const { limit, level } = await lowerLimit(DEFAULT_BODY_LIMIT);
    expect(limit).toBe(1024 * 1024 - 64 * 1024);
    expect(level).toBe(30);
  });

  it('lowers a limit someone set above the max_payload and warns of it', async () => {
    const { limit, level } = await lowerLimit(8 * 1024 * 1024);
    expect(limit).toBe(1024 * 1024 - 64 * 1024);
    expect(level).toBe(40);
  });
});
