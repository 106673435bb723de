import { connect, headers as natsHeaders, type NatsConnection } from 'nats';
import pino from 'pino';
import { createRequestMessage, startNatsServer, type TestNatsServer } from '../testing';
import { retryWhileUnavailable } from '../store/store-errors';
import { encodeMessage } from '../wire/codec';
import { DEADLINE_HEADER, createRequestHeaders } from '../wire/headers';
import type { ResponseMessage } from '../wire/types';
import type { Handler } from './adapt-handler';
import { createExecutive, type Executive } from './create-executive';

let server: TestNatsServer;
let nc: NatsConnection;
let executive: Executive<object> | undefined;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});
afterEach(async () => {
  await executive?.stop();
  executive = undefined;
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

async function startWith(handlers: Record<string, Handler>, handlerTimeout: number): Promise<void> {
  executive = createExecutive({
    name: 'deadline-service',
    version: '1.0.0',
    description: 'handlers that take their time',
    startups: [
      (context) => {
        for (const [uri, handler] of Object.entries(handlers)) context.register({ method: 'put', uri }, handler);
      },
    ],
    argv: ['-n', server.url, '--handlerTimeout', String(handlerTimeout)],
    env: {},
    logger: pino({ level: 'silent' }),
  });
  await executive.start();
}

/** Sends a request message with the deadline header set to `carried` (absent when undefined); times the reply. */
async function call(uri: string, carried?: string): Promise<{ reply: ResponseMessage; ms: number }> {
  const headers = createRequestHeaders();
  if (carried !== undefined) headers.set(DEADLINE_HEADER, carried);
  const started = performance.now();
  const msg = await nc.request(`easer.put_${uri}`, encodeMessage(createRequestMessage({ uri, method: 'put' })), {
    timeout: 8000,
    headers,
  });
  return { reply: msg.json<ResponseMessage>(), ms: performance.now() - started };
}

const never: Handler = () => undefined;
// A store write during a JetStream election: every attempt hears "no leader" until the deadline.
const inElection: Handler = async () => {
  await retryWhileUnavailable('persons', () => Promise.reject(Object.assign(new Error('no leader'), { code: '503' })));
  return { status: 200 };
};

describe('a service given the time the call still has (the Restbus-Deadline-Ms header)', () => {
  it('answers a handler that never calls back at the carried deadline, not at its own longer one', async () => {
    await startWith({ '/slow': never }, 5000);
    const { reply, ms } = await call('/slow', '1000');
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
    expect(ms).toBeGreaterThan(700);
    expect(ms).toBeLessThan(1000);
  });

  it('follows the carried deadline past its own handler timeout, which is for callers that do not say', async () => {
    await startWith({ '/slow': never }, 600);
    const { reply, ms } = await call('/slow', '1500');
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
    expect(ms).toBeGreaterThan(1200);
    expect(ms).toBeLessThan(1500);
  });

  it('keeps its own handler timeout for a request without the header (easer’s gateway)', async () => {
    await startWith({ '/slow': never }, 1500);
    const { reply, ms } = await call('/slow');
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
    expect(ms).toBeGreaterThan(1400);
    expect(ms).toBeLessThan(2000);
  });

  it.each(['-5', 'soon', '1e99', '99999999999999999999', '12.5', '', ' 800'])(
    'ignores the absurd value %j and keeps its own timeout',
    async (carried) => {
      await startWith({ '/slow': never, '/fast': async () => ({ status: 200 }) }, 700);
      const { reply, ms } = await call('/slow', carried);
      expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
      expect(ms).toBeGreaterThan(650);
      expect(ms).toBeLessThan(1200);
      expect((await call('/fast', carried)).reply).toMatchObject({ status: 200 });
    },
  );

  it('answers a call with almost no time left at once, and goes on serving', async () => {
    await startWith({ '/slow': never, '/fast': async () => ({ status: 200 }) }, 5000);
    const { reply, ms } = await call('/slow', '0');
    expect(reply).toMatchObject({ status: 500, body: { code: 'HANDLER_FAILED' } });
    expect(ms).toBeLessThan(300);
    expect((await call('/fast', '3000')).reply).toMatchObject({ status: 200 });
  });

  it('lets a write wait out an election up to the carried deadline, then answers 503 STORE_UNAVAILABLE with Retry-After', async () => {
    await startWith({ '/persons/{id}': inElection }, 10_000);
    const { reply, ms } = await call('/persons/{id}', '2500');
    expect(reply).toMatchObject({ status: 503, body: { code: 'STORE_UNAVAILABLE' } });
    expect(reply.headers?.['Retry-After'] ?? reply.headers?.['retry-after']).toBeDefined();
    // It waited nearly all of it: the gateway would still be waiting for the answer.
    expect(ms).toBeGreaterThan(2000);
    expect(ms).toBeLessThan(2500);
  });

  it('keeps requests with different carried deadlines apart: each is answered at its own', async () => {
    await startWith({ '/slow': never }, 5000);
    const answers = await Promise.all(['1500', '600', '1000'].map((carried) => call('/slow', carried)));
    const [long, short, middle] = answers.map((answer) => answer.ms);
    expect(short).toBeLessThan(middle);
    expect(middle).toBeLessThan(long);
    expect(long).toBeLessThan(1500);
  });

  it('reads the header whatever the case of its name', async () => {
    await startWith({ '/slow': never }, 5000);
    const headers = natsHeaders();
    headers.set('restbus-deadline-ms', '800');
    const started = performance.now();
    const msg = await nc.request(`easer.put_/slow`, encodeMessage(createRequestMessage({ uri: '/slow' })), {
      timeout: 8000,
      headers,
    });
    expect(msg.json<ResponseMessage>()).toMatchObject({ status: 500 });
    expect(performance.now() - started).toBeLessThan(800);
  });
});
