import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { startNatsServer, type TestNatsServer } from '../testing';
import { encodeMessage } from '../wire/codec';
import { createRequestHeaders } from '../wire/headers';
import { startResponder, type Responder, type Route } from './start-responder';
import { createRequestMessage } from '../testing';
import { RestbusError } from '../errors/restbus-error';
import { jsonText } from '../wire/json-text';
import { BODY_APART, REPLY_FORM_HEADER } from '../wire/reply-apart';

const logger = pino({ level: 'silent' });
let server: TestNatsServer;
let nc: NatsConnection;
const responders: Responder[] = [];

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
});

afterEach(async () => {
  await Promise.all(responders.splice(0).map((responder) => responder.stop()));
});

afterAll(async () => {
  await nc?.close();
  await server?.dispose();
});

async function start(routes: Route[], name = 'test-service'): Promise<Responder> {
  const responder = await startResponder({ nc, logger, name, version: '0.0.1', topicPrefix: 'easer', routes });
  responders.push(responder);
  return responder;
}

async function call(subject: string, payload: Uint8Array) {
  const reply = await nc.request(subject, payload, { timeout: 2000, headers: createRequestHeaders() });
  return { headers: reply.headers, body: reply.json<{ status: number; body: { error?: string; code?: string } }>() };
}

describe('startResponder', () => {
  it('answers a request message on <prefix>.<method>_<uri> with the handler result and rpc/response headers', async () => {
    await start([
      { method: 'GET', uri: '/persons', handle: (message) => ({ status: 200, body: { got: message.uri } }) },
    ]);
    const reply = await call('easer.get_/persons', encodeMessage(createRequestMessage()));
    expect(reply.body).toEqual({ status: 200, body: { got: '/persons' } });
    expect(reply.headers?.get('message-type')).toBe('rpc/response');
    expect(reply.headers?.get('content-type')).toBe('application/json');
  });

  it('sends the body apart from its head, as bytes, to a caller that asks for it, and the envelope to one that does not', async () => {
    await start([
      { method: 'GET', uri: '/persons', handle: () => ({ status: 200, body: jsonText('[{"id":"p1"}]') }) },
      { method: 'GET', uri: '/text', handle: () => ({ status: 201, headers: { 'x-a': '1' }, body: 'hé' }) },
      { method: 'GET', uri: '/none', handle: () => ({ status: 204 }) },
    ]);
    const apart = createRequestHeaders();
    apart.set(REPLY_FORM_HEADER, BODY_APART);
    const request = (uri: string, headers = apart) =>
      nc.request(`easer.get_${uri}`, encodeMessage(createRequestMessage({ uri })), { timeout: 2000, headers });

    const list = await request('/persons');
    expect(JSON.parse(list.headers?.get('Restbus-Reply-Head') ?? '')).toEqual({
      status: 200,
      headers: { 'content-type': 'application/json; charset=utf-8' },
    });
    expect(list.string()).toBe('[{"id":"p1"}]');
    const text = await request('/text');
    expect(JSON.parse(text.headers?.get('Restbus-Reply-Head') ?? '')).toEqual({
      status: 201,
      headers: { 'x-a': '1', 'content-type': 'text/plain; charset=utf-8' },
    });
    expect(text.string()).toBe('hé');
    const none = await request('/none');
    expect(JSON.parse(none.headers?.get('Restbus-Reply-Head') ?? '')).toEqual({ status: 204, headers: {} });
    expect(none.data.length).toBe(0);

    const envelope = await request('/persons', createRequestHeaders());
    expect(envelope.headers?.has('Restbus-Reply-Head')).toBe(false);
    expect(envelope.json()).toEqual({ status: 200, body: [{ id: 'p1' }] });
  });

  it('answers 400 MESSAGE_INVALID to a payload that is not a request message and keeps serving', async () => {
    await start([{ method: 'get', uri: '/persons', handle: () => ({ status: 200, body: [] }) }]);
    const bad = await call('easer.get_/persons', new TextEncoder().encode('junk'));
    expect(bad.body).toMatchObject({ status: 400, body: { code: 'MESSAGE_INVALID' } });
    expect(bad.headers?.get('Nats-Service-Error-Code')).toBe('400');
    const good = await call('easer.get_/persons', encodeMessage(createRequestMessage()));
    expect(good.body).toEqual({ status: 200, body: [] });
  });

  it.each([
    [
      'throws',
      () => {
        throw new Error('boom');
      },
    ],
    ['rejects', () => Promise.reject(new Error('boom'))],
    ['returns a non-message', () => 42 as never],
  ])('answers 500 HANDLER_FAILED when the handler %s, without leaking the cause', async (_what, handle) => {
    await start([{ method: 'get', uri: '/persons', handle }]);
    const reply = await call('easer.get_/persons', encodeMessage(createRequestMessage()));
    expect(reply.body).toEqual({
      status: 500,
      headers: { 'content-type': 'application/json' },
      body: { error: 'the service failed to handle the request', code: 'HANDLER_FAILED' },
    });
    expect(reply.headers?.get('Nats-Service-Error-Code')).toBe('500');
  });

  it.each([
    ['REQUEST_INVALID', 400, undefined],
    ['STORE_UNAVAILABLE', 503, '2'],
  ] as const)('answers a RestbusError %s with its status, code and message', async (code, status, retryAfter) => {
    await start([
      {
        method: 'get',
        uri: '/persons',
        handle: () => {
          throw new RestbusError(code, 'said to the client');
        },
      },
    ]);
    const reply = await call('easer.get_/persons', encodeMessage(createRequestMessage()));
    expect(reply.body).toMatchObject({ status, body: { error: 'said to the client', code } });
    expect((reply.body as unknown as { headers: Record<string, string> }).headers['retry-after']).toBe(retryAfter);
  });

  it('drops, unanswered and unhandled, a request whose reply subject is not an inbox', async () => {
    let handled = 0;
    await start([
      {
        method: 'put',
        uri: '/persons',
        handle: () => {
          handled++;
          return { status: 200 };
        },
      },
    ]);
    const stolen: string[] = [];
    const sub = nc.subscribe('$JS.API.STREAM.PURGE.>', { callback: (_err, msg) => stolen.push(msg.subject) });
    nc.publish('easer.put_/persons', encodeMessage(createRequestMessage({ method: 'put' })), {
      reply: '$JS.API.STREAM.PURGE.KV_persons',
    });
    // A real request after it: once it is answered, the one before has been dealt with too (same subscription).
    const reply = await call('easer.put_/persons', encodeMessage(createRequestMessage({ method: 'put' })));
    expect(reply.body).toMatchObject({ status: 200 });
    sub.unsubscribe();
    expect(stolen).toEqual([]);
    expect(handled).toBe(1);
  });

  it('replies to inboxes below a configured prefix', async () => {
    const responder = await startResponder({
      nc,
      logger,
      name: 'locked-down',
      version: '0.0.1',
      topicPrefix: 'locked',
      inboxPrefix: '_INBOX_locked',
      routes: [{ method: 'get', uri: '/x', handle: () => ({ status: 200 }) }],
    });
    responders.push(responder);
    const own = await connect({ servers: server.url, inboxPrefix: '_INBOX_locked' });
    try {
      const reply = await own.request('locked.get_/x', encodeMessage(createRequestMessage()), { timeout: 2000 });
      expect(reply.json()).toMatchObject({ status: 200 });
      await expect(
        nc.request('locked.get_/x', encodeMessage(createRequestMessage()), { timeout: 300 }),
      ).rejects.toThrow();
    } finally {
      await own.close();
    }
  });

  it('shares the load between replicas in one queue group', async () => {
    await start([{ method: 'get', uri: '/who', handle: () => ({ body: 'a' }) }]);
    await start([{ method: 'get', uri: '/who', handle: () => ({ body: 'b' }) }]);
    const answers = new Set<string>();
    for (let i = 0; i < 40; i++) {
      const reply = await nc.request('easer.get_/who', encodeMessage(createRequestMessage({ uri: '/who' })), {
        timeout: 2000,
      });
      answers.add(reply.json<{ body: string }>().body);
    }
    expect([...answers].sort()).toEqual(['a', 'b']);
  });

  it('registers with the NATS services API so that $SRV.PING finds it', async () => {
    await start([{ method: 'get', uri: '/persons', handle: () => ({}) }], 'pingable');
    const reply = await nc.request('$SRV.PING.pingable', undefined, { timeout: 2000 });
    expect(reply.json<{ name: string }>().name).toBe('pingable');
  });

  it("tells its process's memory and handles in $SRV.STATS, for a long run to watch", async () => {
    await start([{ method: 'get', uri: '/persons', handle: () => ({}) }], 'watched');
    const reply = await nc.request('$SRV.STATS.watched', undefined, { timeout: 2000 });
    const { endpoints } = reply.json<{ endpoints: Array<{ data: Record<string, number> }> }>();
    // The figures themselves are the benchmarks' to judge; here, that they are there. The live heap is known only
    // after a full collection, which this test does not force.
    const { heapLive, ...always } = endpoints[0].data;
    expect(always).toEqual({
      rss: expect.any(Number),
      heapUsed: expect.any(Number),
      heapTotal: expect.any(Number),
      external: expect.any(Number),
      arrayBuffers: expect.any(Number),
      handles: expect.any(Number),
    });
    expect(heapLive === undefined || typeof heapLive === 'number').toBe(true);
  });

  it('lets a request in flight reply before stop resolves', async () => {
    const responder = await start([
      {
        method: 'get',
        uri: '/slow',
        handle: () => new Promise((resolve) => setTimeout(() => resolve({ body: 'late' }), 300)),
      },
    ]);
    const pending = nc.request('easer.get_/slow', encodeMessage(createRequestMessage({ uri: '/slow' })), {
      timeout: 2000,
    });
    await new Promise((resolve) => setTimeout(resolve, 50));
    await responder.stop();
    expect((await pending).json<{ body: string }>().body).toBe('late');
  });

  it('refuses a route whose subject would contain a wildcard', async () => {
    await expect(start([{ method: 'get', uri: '/files.*', handle: () => ({}) }])).rejects.toThrow(/wildcard/);
  });
});
