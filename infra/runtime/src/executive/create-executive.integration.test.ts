import { Writable } from 'node:stream';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { startNatsServer, createRequestMessage, type TestNatsServer } from '../testing';
import { encodeMessage } from '../wire/codec';
import type { ResponseMessage } from '../wire/types';
import type { Handler } from './adapt-handler';
import { createExecutive, type Executive, type Startup } from './create-executive';

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

/** A logger whose lines the test can read. */
function createCapturingLogger() {
  const lines: Array<Record<string, unknown>> = [];
  const stream = new Writable({
    write(chunk: Buffer, _encoding, done) {
      lines.push(JSON.parse(chunk.toString()) as Record<string, unknown>);
      done();
    },
  });
  return { logger: pino({ level: 'info' }, stream), lines };
}

async function startWith(
  handlers: Record<string, Handler>,
  extra: { startups?: Array<Startup<object>>; timeout?: number; logger?: pino.Logger } = {},
) {
  executive = createExecutive({
    name: 'demo-service',
    version: '1.0.0',
    description: 'demo',
    startups: [
      ...(extra.startups ?? []),
      (context) => {
        for (const [uri, handler] of Object.entries(handlers)) context.register({ method: 'get', uri }, handler);
      },
    ],
    argv: ['-n', server.url, '--handlerTimeout', String(extra.timeout ?? 300)],
    env: {},
    logger: extra.logger ?? pino({ level: 'silent' }),
  });
  return executive.start();
}

async function call(uri: string): Promise<{ reply: ResponseMessage; type: string | undefined }> {
  const msg = await nc.request(`easer.get_${uri}`, encodeMessage(createRequestMessage({ uri })), { timeout: 3000 });
  return { reply: msg.json<ResponseMessage>(), type: msg.headers?.get('message-type') };
}

const ok: ResponseMessage = { status: 200, headers: {}, body: { ok: true } };
const failed = { status: 500, body: { code: 'HANDLER_FAILED', error: 'the service failed to handle the request' } };

describe('the executive', () => {
  it('binds a (data, cb) handler to <prefix>.<method>_<uri> and replies with rpc/response', async () => {
    await startWith({ '/a': (data, cb) => cb(null, { ...ok, body: { uri: data.uri } }) });
    expect(await call('/a')).toEqual({ reply: { ...ok, body: { uri: '/a' } }, type: 'rpc/response' });
  });

  it('accepts a handler that returns a promise of the response', async () => {
    await startWith({ '/p': async () => ok });
    expect((await call('/p')).reply).toEqual(ok);
  });

  it.each<[string, Handler]>([
    ['calls back with an error', (_data, cb) => cb(new Error('db down'))],
    [
      'throws',
      () => {
        throw new Error('bug');
      },
    ],
    ['rejects', () => Promise.reject(new Error('bug'))],
    ['never calls back', () => undefined],
  ])('answers 500 when the handler %s, and keeps serving', async (_what, handler) => {
    await startWith({ '/bad': handler, '/good': (_data, cb) => cb(null, ok) });
    expect((await call('/bad')).reply).toMatchObject(failed);
    expect((await call('/good')).reply).toEqual(ok);
  });

  it('ignores and logs a second call of cb', async () => {
    const { logger, lines } = createCapturingLogger();
    await startWith(
      {
        '/twice': (_data, cb) => {
          cb(null, ok);
          cb(null, { status: 418 });
        },
      },
      { logger },
    );
    expect((await call('/twice')).reply).toEqual(ok);
    expect(lines.some((line) => String(line.msg).includes('called back again'))).toBe(true);
  });

  it('runs the startup functions in order and their shutdowns in reverse', async () => {
    const events: string[] = [];
    const step =
      (name: string): Startup<object> =>
      () => {
        events.push(`start ${name}`);
        return () => {
          events.push(`stop ${name}`);
        };
      };
    await startWith({}, { startups: [step('config'), step('store'), step('cache')] });
    await executive!.stop();
    expect(events).toEqual(['start config', 'start store', 'start cache', 'stop cache', 'stop store', 'stop config']);
  });

  it('registers with the NATS services API, which counts requests and errors per endpoint', async () => {
    const started = await startWith({ '/a': (_data, cb) => cb(null, ok), '/b': (_data, cb) => cb(new Error('no')) });
    await call('/a');
    await call('/a');
    await call('/b');
    const ping = await nc.request(`$SRV.PING.demo-service.${started.id}`, undefined, { timeout: 1000 });
    expect(ping.json<{ name: string; version: string }>()).toMatchObject({ name: 'demo-service', version: '1.0.0' });
    const stats = (await nc.request('$SRV.STATS.demo-service', undefined, { timeout: 1000 })).json<{
      endpoints: Array<{ subject: string; num_requests: number; num_errors: number }>;
    }>();
    expect(stats.endpoints.map(({ subject, num_requests, num_errors }) => [subject, num_requests, num_errors])).toEqual(
      [
        ['easer.get_/a', 2, 0],
        ['easer.get_/b', 1, 1],
      ],
    );
  });

  it('stops cleanly while it is still waiting for NATS', async () => {
    await server.stop();
    try {
      const waiting = createExecutive({
        name: 'x',
        version: '0',
        description: 'x',
        startups: [],
        argv: ['-n', server.url],
        env: {},
        logger: pino({ level: 'silent' }),
      });
      const starting = waiting.start();
      await new Promise((resolve) => setTimeout(resolve, 200));
      await waiting.stop();
      await expect(starting).rejects.toThrow();
    } finally {
      await server.start();
    }
  });
});
