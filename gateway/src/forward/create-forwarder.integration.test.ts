import { connect, headers as natsHeaders, type NatsConnection, type Subscription } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink, type RequestMessage } from '@restbus/infra';
import { sendRaw, startNatsServer, type TestNatsServer, waitFor } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from '../__tests__/start-test-gateway';

const endpoint = testEndpoint;
const endpoints = [
  endpoint('get', '/items'),
  endpoint('put', '/items/{itemId}'),
  endpoint('post', '/items'),
  endpoint('get', '/silent'),
  endpoint('get', '/unserved'),
  endpoint('get', '/moving'),
];

let server: TestNatsServer;
let nc: NatsConnection;
let link: NatsLink;
let gateway: TestGateway;
/** The same gateway with a short timeout, for the calls that are never answered: their 504 comes sooner. */
let hasty: TestGateway;
let subscription: Subscription | undefined;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  link = createNatsLink({ servers: server.url, name: 'gateway-test', logger: pino({ level: 'silent' }) });
  await link.ready();
  // A timeout no busy machine comes near for a call that is answered (they take milliseconds).
  gateway = await startTestGateway(endpoints, { link, timeoutMs: 5000, bodyLimit: 1024 });
  hasty = await startTestGateway(endpoints, { link, timeoutMs: 300, bodyLimit: 1024 });
});
// The gateway sends on its own connection: until the server has processed the unsubscribe, it would still
// deliver the next test's request to this responder, which then drops it (a timeout instead of NO_RESPONDER).
afterEach(async () => {
  if (!subscription) return;
  subscription.unsubscribe();
  subscription = undefined;
  await nc.flush();
});
afterAll(async () => {
  await gateway?.close();
  await hasty?.close();
  await link?.drain();
  await nc?.close();
  await server?.dispose();
});

/** A responder on one subject that records what it receives and answers with `reply` (raw bytes or JSON). */
async function respondWith(subject: string, reply: unknown, replyHeaders?: Record<string, string>) {
  const received: { message?: RequestMessage; headers?: Record<string, string> } = {};
  subscription = nc.subscribe(subject, {
    callback: (_err, msg) => {
      received.message = msg.json<RequestMessage>();
      received.headers = Object.fromEntries(
        [...(msg.headers?.keys() ?? [])].map((key) => [key, msg.headers!.get(key)]),
      );
      const hdrs = natsHeaders();
      for (const [key, value] of Object.entries(replyHeaders ?? {})) hdrs.set(key, value);
      msg.respond(typeof reply === 'string' ? reply : JSON.stringify(reply), { headers: hdrs });
    },
  });
  await nc.flush();
  return received;
}

describe('forwarding a call', () => {
  it('sends the request message of the wire contract to <prefix>.<method>_<uri> with rpc/request headers', async () => {
    const received = await respondWith('easer.put_/items/{itemId}', { status: 200, body: { ok: true } });
    const response = await fetch(`${gateway.url}/items/a%20b?tag=1&tag=2&one=x`, {
      method: 'PUT',
      headers: { 'Content-Type': 'application/json', Cookie: 'sid=abc; theme=dark', 'X-Custom': 'Yes' },
      body: '{"name": "exact text"}',
    });
    expect(response.status).toBe(200);
    expect(received.headers).toEqual({
      'content-type': 'application/json',
      'message-type': 'rpc/request',
      traceparent: expect.stringMatching(/^00-[\da-f]{32}-[\da-f]{16}-01$/),
      'x-request-id': response.headers.get('x-request-id'),
      'Restbus-Reply-Form': 'body-apart',
      // The time the call still has, in whole ms: the service answers by then.
      'Restbus-Deadline-Ms': expect.stringMatching(/^\d+$/),
    });
    const message = received.message!;
    expect(message).toMatchObject({
      topic: 'easer.put_/items/{itemId}',
      method: 'put',
      uri: '/items/{itemId}',
      endpointDesc: endpoints[1].desc,
    });
    expect(message.request.cookies).toEqual({ sid: 'abc', theme: 'dark' });
    expect(message.request.headers).toMatchObject({ 'content-type': 'application/json', 'x-custom': 'Yes' });
    expect(message.request.parameters).toEqual({ query: { tag: ['1', '2'], one: 'x' }, uri: { itemId: 'a b' } });
    expect(message.request.body).toBe('{"name": "exact text"}');
  });

  it("writes a body that travels apart from its head to the client byte for byte, under the head's status and headers", async () => {
    const bytes = Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x00, 0xff, 0x0d, 0x0a]);
    subscription = nc.subscribe('easer.get_/items', {
      callback: (_err, msg) => {
        const head = natsHeaders();
        head.set(
          'Restbus-Reply-Head',
          JSON.stringify({ status: 203, headers: { 'content-type': 'image/png', 'x-a': 'b' } }),
        );
        msg.respond(bytes, { headers: head });
      },
    });
    await nc.flush();
    const response = await fetch(`${gateway.url}/items`);
    expect(response.status).toBe(203);
    expect(response.headers.get('content-type')).toBe('image/png');
    expect(response.headers.get('x-a')).toBe('b');
    expect(Buffer.from(await response.arrayBuffer())).toEqual(bytes);
  });

  it('answers 502 BAD_REPLY when the head of a body apart is not a status and headers', async () => {
    subscription = nc.subscribe('easer.get_/items', {
      callback: (_err, msg) => {
        const head = natsHeaders();
        head.set('Restbus-Reply-Head', '{"status":"fine"}');
        msg.respond('[]', { headers: head });
      },
    });
    await nc.flush();
    const response = await fetch(`${gateway.url}/items`);
    expect(response.status).toBe(502);
    expect(await response.json()).toMatchObject({ code: 'BAD_REPLY' });
  });

  it('sends a query in qs syntax as easer did: brackets nest objects, [] and repeated keys make lists', async () => {
    const received = await respondWith('easer.get_/items', { body: [] });
    const query =
      'b[c]=3&a[]=1&a[]=2&f[x][y]=z&plain=%20p+q&' + Array.from({ length: 25 }, (_, i) => `id=${i}`).join('&');
    expect((await fetch(`${gateway.url}/items?${query}`)).status).toBe(200);
    expect(received.message!.request.parameters.query).toEqual({
      b: { c: '3' },
      a: ['1', '2'],
      f: { x: { y: 'z' } },
      plain: ' p q',
      id: Array.from({ length: 25 }, (_, i) => String(i)),
    });
  });

  it("passes the caller's traceparent and x-request-id to the service and answers with the request id", async () => {
    const received = await respondWith('easer.get_/items', { body: [] });
    const traceparent = '00-0af7651916cd43dd8448eb211c80319c-b7ad6b7169203331-01';
    const response = await fetch(`${gateway.url}/items`, { headers: { traceparent, 'x-request-id': 'req-42' } });
    expect(received.headers).toMatchObject({ traceparent, 'x-request-id': 'req-42' });
    expect(response.headers.get('x-request-id')).toBe('req-42');
  });

  it('sends an empty string as the body of a call without one', async () => {
    const received = await respondWith('easer.get_/items', { body: [] });
    await fetch(`${gateway.url}/items`);
    expect(received.message!.request.body).toBe('');
    expect(received.message!.request.bodyEncoding).toBeUndefined();
  });

  it('sends a binary body as base64 and says so', async () => {
    const received = await respondWith('easer.post_/items', { status: 201 });
    await fetch(`${gateway.url}/items`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/octet-stream' },
      body: new Uint8Array([0xff, 0xfe, 0x00, 0x01]),
    });
    expect(received.message!.request).toMatchObject({ body: '//4AAQ==', bodyEncoding: 'base64' });
  });
});

describe('HEAD and validation', () => {
  it('forwards HEAD on the GET subject and sends the headers without a body', async () => {
    const received = await respondWith('easer.get_/items', { status: 200, body: [1, 2, 3] });
    const response = await fetch(`${gateway.url}/items`, { method: 'HEAD' });
    expect(received.message!.method).toBe('get');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-length')).toBe('7');
    expect(await response.text()).toBe('');
  });

  it('forwards malformed JSON under a JSON content type as text when validation is off', async () => {
    const received = await respondWith('easer.post_/items', { status: 201 });
    await fetch(`${gateway.url}/items`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json' },
      body: '{oops',
    });
    expect(received.message!.request.body).toBe('{oops');
  });

  it('with --validate, answers a call that breaks its operation with 400 and the problems, and forwards a good one', async () => {
    const validating = await startTestGateway(
      [
        testEndpoint('post', '/items', {
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: { type: 'object', required: ['name'], properties: { name: { type: 'string' } } },
              },
            },
          },
        }),
      ],
      { link, validate: true },
    );
    try {
      const received = await respondWith('easer.post_/items', { status: 201 });
      const bad = await fetch(`${validating.url}/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name":1}',
      });
      expect(bad.status).toBe(400);
      expect(await bad.json()).toEqual({
        error: 'the request does not match the API description',
        code: 'REQUEST_INVALID',
        problems: [{ location: 'body/name', message: 'must be string' }],
      });
      expect(received.message).toBeUndefined();
      const good = await fetch(`${validating.url}/items`, {
        method: 'POST',
        headers: { 'Content-Type': 'application/json' },
        body: '{"name":"x"}',
      });
      expect(good.status).toBe(201);
    } finally {
      await validating.close();
    }
  });
});

describe('mapping the reply to the HTTP response', () => {
  it.each([
    [
      'a missing status means 200 and an array body is JSON',
      { body: [1, 2] },
      200,
      'application/json; charset=utf-8',
      '[1,2]',
    ],
    ['a number body is JSON', { status: 200, body: 42 }, 200, 'application/json; charset=utf-8', '42'],
    [
      'a string body without a type is text/plain',
      { status: 200, body: 'hello' },
      200,
      'text/plain; charset=utf-8',
      'hello',
    ],
    [
      'a string body keeps the reply type',
      { status: 200, headers: { 'Content-Type': 'text/csv' }, body: 'a,b' },
      200,
      'text/csv; charset=utf-8',
      'a,b',
    ],
    [
      'a null body means no body',
      { status: 404, headers: { 'content-type': 'application/json' }, body: null },
      404,
      'application/json; charset=utf-8',
      '',
    ],
    ['a 204 has no body even when one is given', { status: 204, body: { ignored: true } }, 204, null, ''],
  ])('%s', async (_what, reply, status, type, text) => {
    await respondWith('easer.get_/items', reply);
    const response = await fetch(`${gateway.url}/items`);
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe(type);
    expect(await response.text()).toBe(text);
  });

  it('passes the reply headers on', async () => {
    await respondWith('easer.post_/items', {
      status: 201,
      headers: { Location: '/items/7', 'X-Count': 3 },
      body: { id: '7' },
    });
    const response = await fetch(`${gateway.url}/items`, { method: 'POST', body: '{}' });
    expect(response.status).toBe(201);
    expect(response.headers.get('location')).toBe('/items/7');
    expect(response.headers.get('x-count')).toBe('3');
  });

  it('maps the NATS service error headers to that status with a JSON error', async () => {
    await respondWith(
      'easer.get_/items',
      { status: 200 },
      { 'Nats-Service-Error-Code': '409', 'Nats-Service-Error': 'already there' },
    );
    const response = await fetch(`${gateway.url}/items`);
    expect(response.status).toBe(409);
    expect(await response.json()).toEqual({ error: 'already there', code: 'SERVICE_ERROR' });
  });

  it("passes a restbus service's error reply on whole: its code and its Retry-After travel to the client", async () => {
    await respondWith(
      'easer.get_/items',
      {
        status: 503,
        headers: { 'retry-after': '2' },
        body: { error: 'the store is not available', code: 'STORE_UNAVAILABLE' },
      },
      { 'Nats-Service-Error-Code': '503', 'Nats-Service-Error': 'the store is not available' },
    );
    const response = await fetch(`${gateway.url}/items`);
    expect(response.status).toBe(503);
    expect(response.headers.get('retry-after')).toBe('2');
    expect(await response.json()).toEqual({ error: 'the store is not available', code: 'STORE_UNAVAILABLE' });
  });
});

describe('failures', () => {
  const expectError = async (response: Response, status: number, code: string) => {
    expect(response.status).toBe(status);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    expect(await response.json()).toMatchObject({ code, error: expect.any(String) });
  };

  // NO_RESPONDER comes from the server's no-responders status, which arrives before any timeout could.
  it('answers 400 REQUEST_INVALID to a query of more than 1000 parameters, without calling the service', async () => {
    let calls = 0;
    subscription = nc.subscribe('easer.get_/items', { callback: () => calls++ });
    await nc.flush();
    const query = Array.from({ length: 1001 }, (_, i) => `k${i}=1`).join('&');
    await expectError(await fetch(`${gateway.url}/items?${query}`), 400, 'REQUEST_INVALID');
    expect(calls).toBe(0);
  });

  it('answers 503 NO_RESPONDER with Retry-After when no service listens', async () => {
    const response = await fetch(`${gateway.url}/items`);
    expect(response.headers.get('retry-after')).toBe('2');
    await expectError(response, 503, 'NO_RESPONDER');
  });

  it('answers 503 NO_RESPONDER at once on a subject no service has answered, without waiting for one', async () => {
    const call = fetch(`${gateway.url}/unserved`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    await respondWith('easer.get_/unserved', { status: 200, body: { late: true } });
    await expectError(await call, 503, 'NO_RESPONDER');
  });

  it('sends a call again when the service that answered its subject is gone and subscribes again within its timeout, delivering it once', async () => {
    let deliveries = 0;
    const serve = () =>
      nc.subscribe('easer.get_/moving', {
        callback: (_err, msg) => {
          deliveries++;
          msg.respond(JSON.stringify({ status: 200, body: { back: true } }));
        },
      });
    subscription = serve();
    await nc.flush();
    expect((await fetch(`${gateway.url}/moving`)).status).toBe(200);
    subscription.unsubscribe();
    await nc.flush();
    deliveries = 0;
    const call = fetch(`${gateway.url}/moving`);
    await new Promise((resolve) => setTimeout(resolve, 100));
    subscription = serve();
    await nc.flush();
    const response = await call;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ back: true });
    expect(deliveries).toBe(1);
  });

  // A NATS node can take the request, or its reply, down with it while the gateway's own connection lives.
  it('sends a PUT whose reply is late once more at half its timeout, and answers with the reply to the second', async () => {
    const seen: string[] = [];
    subscription = nc.subscribe('easer.put_/items/{itemId}', {
      callback: (_err, msg) => {
        seen.push(msg.string());
        if (seen.length > 1) msg.respond(JSON.stringify({ status: 200, body: { stored: true } }));
      },
    });
    await nc.flush();
    const response = await fetch(`${gateway.url}/items/7`, { method: 'PUT', body: 'v' });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ stored: true });
    expect(seen).toHaveLength(2);
    expect(seen[1]).toBe(seen[0]);
  });

  it('never sends a late POST again: it is answered 504 UPSTREAM_TIMEOUT, having reached the service once', async () => {
    let deliveries = 0;
    subscription = nc.subscribe('easer.post_/items', { callback: () => deliveries++ });
    await nc.flush();
    await expectError(await fetch(`${hasty.url}/items`, { method: 'POST', body: 'v' }), 504, 'UPSTREAM_TIMEOUT');
    // On a busy machine the 504 can come before the one copy reached the service: it reaches it, and no other.
    await (await link.ready()).flush();
    await nc.flush();
    expect(deliveries).toBe(1);
  });

  it('answers 504 UPSTREAM_TIMEOUT when the service does not reply in time', async () => {
    subscription = nc.subscribe('easer.get_/silent', { callback: () => undefined });
    await nc.flush();
    await expectError(await fetch(`${hasty.url}/silent`), 504, 'UPSTREAM_TIMEOUT');
  });

  it.each([
    ['not JSON', 'not json'],
    ['not of the response shape', '[1,2]'],
    ['a status outside 100-599', '{"status":999}'],
    ['a header that HTTP cannot carry', '{"status":200,"headers":{"bad header":"x"}}'],
  ])('answers 502 BAD_REPLY to a reply that is %s', async (_what, reply) => {
    await respondWith('easer.get_/items', reply);
    await expectError(await fetch(`${gateway.url}/items`), 502, 'BAD_REPLY');
  });

  // A 1xx is interim in HTTP: written as the final answer it leaves the client waiting for one that never comes.
  it.each([100, 101, 103, 199])('answers 502 BAD_REPLY when a reply carries status %i', async (status) => {
    await respondWith('easer.get_/items', { status, body: { ok: true } });
    await expectError(await fetch(`${gateway.url}/items`, { signal: AbortSignal.timeout(5000) }), 502, 'BAD_REPLY');
  });

  it.each(['101', '302', '4091', 'abc', ''])(
    'answers 502 BAD_REPLY when a reply carries the service error code "%s"',
    async (code) => {
      await respondWith(
        'easer.get_/items',
        { status: 200 },
        { 'Nats-Service-Error-Code': code, 'Nats-Service-Error': 'x' },
      );
      await expectError(await fetch(`${gateway.url}/items`, { signal: AbortSignal.timeout(5000) }), 502, 'BAD_REPLY');
    },
  );

  it.each([
    ['status 200 has a header name with a space', '{"status":200,"headers":{"bad header":"x"}}'],
    ['status 302 has a header name with a space', '{"status":302,"headers":{"Location":"/x","bad header":"x"}}'],
    ['status 201 has a line break in a header value', '{"status":201,"headers":{"x-a":"a\\r\\nset-cookie: evil=1"}}'],
  ])('answers 502 Bad Gateway with its own reason phrase when a reply of %s', async (_what, reply) => {
    await respondWith('easer.get_/items', reply);
    const response = await sendRaw(
      Number(new URL(gateway.url).port),
      'GET /items HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n',
    );
    expect(`${response.status} ${response.reason}`).toBe('502 Bad Gateway');
    expect(response.headers['set-cookie']).toBeUndefined();
    expect(JSON.parse(response.body)).toEqual({ error: expect.stringMatching(/header/), code: 'BAD_REPLY' });
  });

  it('says that the body, not a header, is at fault when a reply body cannot be serialised as JSON', async () => {
    // JSON.parse reads any depth; JSON.stringify recurses and runs out of stack long before this.
    const depth = 200_000;
    await respondWith('easer.get_/items', `{"status":200,"body":${'['.repeat(depth)}${']'.repeat(depth)}}`);
    const response = await fetch(`${gateway.url}/items`);
    expect(response.status).toBe(502);
    const body = (await response.json()) as { error: string; code: string };
    expect(body.code).toBe('BAD_REPLY');
    expect(body.error).toMatch(/body/);
    expect(body.error).not.toMatch(/header/);
  });

  it('answers 502 BAD_REPLY when the reply headers are larger than an HTTP client accepts', async () => {
    await respondWith('easer.get_/items', { status: 200, headers: { 'x-big': 'b'.repeat(20_000) }, body: [] });
    await expectError(await fetch(`${gateway.url}/items`), 502, 'BAD_REPLY');
  });

  it("keeps the gateway's own x-request-id and date when a reply sends its own", async () => {
    await respondWith('easer.get_/items', {
      status: 200,
      headers: { 'X-Request-Id': 'forged', date: 'Thu, 01 Jan 1970 00:00:00 GMT', 'x-other': 'kept' },
      body: [],
    });
    const response = await fetch(`${gateway.url}/items`, { headers: { 'x-request-id': 'req-19' } });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req-19');
    expect(response.headers.get('date')).not.toContain('1970');
    expect(response.headers.get('x-other')).toBe('kept');
  });

  // The limit is 1024 here: what counts is the bytes sent, not what JSON escaping or base64 makes of them.
  it.each([
    ['1024 quotes (2048 bytes once JSON-escaped)', '"'.repeat(1024), 'text/plain'],
    ['1024 control characters (6144 bytes once JSON-escaped)', '\u0001'.repeat(1024), 'text/plain'],
    ['1024 binary bytes (1368 once base64)', Buffer.alloc(1024, 0xff), 'application/octet-stream'],
  ])('forwards a body of exactly the limit in bytes sent: %s', async (_what, body, type) => {
    const received = await respondWith('easer.post_/items', { status: 201 });
    const response = await fetch(`${gateway.url}/items`, { method: 'POST', headers: { 'content-type': type }, body });
    expect(response.status).toBe(201);
    expect(received.message!.request.body).toBe(typeof body === 'string' ? body : body.toString('base64'));
  });

  it("keeps the gateway's CORS headers when a reply sends its own, and adds the reply's vary to the gateway's", async () => {
    const withCors = await startTestGateway(endpoints, { link, corsOrigins: ['https://app.example'] });
    try {
      await respondWith('easer.get_/items', {
        status: 200,
        headers: { 'Access-Control-Allow-Origin': '*', vary: 'Accept' },
        body: [],
      });
      const response = await fetch(`${withCors.url}/items`, { headers: { Origin: 'https://app.example' } });
      expect(response.headers.get('access-control-allow-origin')).toBe('https://app.example');
      expect(response.headers.get('vary')).toBe('Origin, Accept');
    } finally {
      await withCors.close();
    }
  });

  it('answers 413 BODY_TOO_LARGE above the body limit', async () => {
    await respondWith('easer.post_/items', { status: 201 });
    await expectError(
      await fetch(`${gateway.url}/items`, { method: 'POST', body: 'x'.repeat(2048) }),
      413,
      'BODY_TOO_LARGE',
    );
  });

  it('answers 503 NATS_UNAVAILABLE at once while NATS is down, and serves again when it is back', async () => {
    await server.stop();
    await waitFor(() => !link.isConnected(), { what: 'the link to see NATS gone', timeoutMs: 30_000 });
    await expectError(await fetch(`${gateway.url}/items`), 503, 'NATS_UNAVAILABLE');
    expect((await fetch(`${gateway.url}/-/ready`)).status).toBe(503);
    await server.start();
    await waitFor(() => link.isConnected(), { what: "the link's return", timeoutMs: 30_000 });
    expect((await fetch(`${gateway.url}/-/ready`)).status).toBe(200);
  });
});
