import { once } from 'node:events';
import { connect as connectSocket } from 'node:net';
import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { sendRaw, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import type { GatewayConfig } from '../config';
import { startGateway, type RunningGateway } from './start-gateway';

const logger = pino({ level: 'silent' });
let server: TestNatsServer;
let nc: NatsConnection;
let dir: string;
let running: RunningGateway | undefined;

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  dir = await mkdtemp(join(tmpdir(), 'restbus-gateway-'));
});
afterEach(async () => {
  await running?.stop();
  running = undefined;
});
afterAll(async () => {
  await nc?.close();
  await server?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** The NATS link connects in the background: wait until the gateway says it is ready. */
async function untilReady(port: number): Promise<void> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if ((await fetch(`http://127.0.0.1:${port}/-/ready`)).ok) return;
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error('the gateway did not become ready within 5 s');
}

const config = (overrides: Partial<GatewayConfig>): GatewayConfig => ({
  restApiPath: [resolve(__dirname, '../../../person-service/person-api.yml')],
  port: 0,
  natsUri: server.url,
  topicPrefix: 'easer',
  inboxPrefix: '_INBOX',
  useMessaging: true,
  timeout: 2000,
  basePath: '/',
  bodyLimit: 65536,
  logLevel: 'silent',
  validate: false,
  headersTimeout: 10_000,
  requestTimeout: 30_000,
  maxConnections: 10_000,
  ...overrides,
});

describe('startGateway', () => {
  it('lets a request in flight finish when stopped, then refuses new connections', async () => {
    nc.subscribe('easer.get_/persons', {
      callback: (_err, msg) => setTimeout(() => msg.respond(JSON.stringify({ status: 200, body: ['late'] })), 300),
    });
    await nc.flush();
    running = await startGateway(config({}), logger);
    const url = `http://127.0.0.1:${running.port}/persons`;
    await untilReady(running.port);
    const pending = fetch(url);
    await new Promise((resolve) => setTimeout(resolve, 100));
    const stopping = running.stop();
    running = undefined;
    const response = await pending;
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual(['late']);
    await stopping;
    await expect(fetch(url)).rejects.toThrow();
  });

  it('reloads the API files, and keeps serving the old endpoints when the new file is invalid', async () => {
    const file = join(dir, 'api.yml');
    await copyFile(resolve(__dirname, '../../../person-service/person-api.yml'), file);
    running = await startGateway(config({ restApiPath: [file], useMessaging: false }), logger);
    const base = `http://127.0.0.1:${running.port}`;
    await writeFile(
      file,
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /systems:\n    get:\n      responses: {"200": {description: ok}}\n',
    );
    expect(await running.reload()).toBe(true);
    expect((await fetch(`${base}/systems`)).status).toBe(501);
    expect((await fetch(`${base}/persons`)).status).toBe(404);
    await writeFile(file, 'openapi: [broken');
    expect(await running.reload()).toBe(false);
    expect((await fetch(`${base}/systems`)).status).toBe(501);
  });

  it('with --validate, checks calls against the reloaded operations, and keeps the old checks when a reload fails', async () => {
    const file = join(dir, 'api.yml');
    const api = (maximum: number): string =>
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /items:\n    get:\n' +
      `      parameters: [{name: limit, in: query, schema: {type: integer, maximum: ${maximum}}}]\n` +
      '      responses: {"200": {description: ok}}\n';
    await writeFile(file, api(10));
    // Nobody serves /items: a call that passes its check is answered 503 NO_RESPONDER, one that fails it 400.
    running = await startGateway(config({ restApiPath: [file], validate: true }), logger);
    await untilReady(running.port);
    const statusOf = async (limit: number): Promise<number> =>
      (await fetch(`http://127.0.0.1:${running!.port}/items?limit=${limit}`)).status;
    expect([await statusOf(5), await statusOf(50)]).toEqual([503, 400]);
    await writeFile(file, api(100));
    expect(await running.reload()).toBe(true);
    expect([await statusOf(50), await statusOf(500)]).toEqual([503, 400]);
    await writeFile(file, 'openapi: [broken');
    expect(await running.reload()).toBe(false);
    expect([await statusOf(50), await statusOf(500)]).toEqual([503, 400]);
  });

  it('asks for replies below the configured inbox prefix, so a locked-down NATS account can allow just that', async () => {
    const replySubjects: string[] = [];
    nc.subscribe('easer.get_/persons', {
      callback: (_err, msg) => {
        replySubjects.push(msg.reply ?? '');
        msg.respond(JSON.stringify({ status: 200, body: [] }));
      },
    });
    await nc.flush();
    running = await startGateway(config({ inboxPrefix: 'restbus.replies' }), logger);
    await untilReady(running.port);
    expect((await fetch(`http://127.0.0.1:${running.port}/persons`)).status).toBe(200);
    expect(replySubjects).toHaveLength(1);
    expect(replySubjects[0]).toMatch(/^restbus\.replies\./);
  });

  it('refuses an API file whose $ref leads outside its folder, unless allowOutsideRefs is set', async () => {
    const apiDir = await mkdtemp(join(dir, 'api-'));
    await writeFile(join(dir, 'shared.yml'), 'type: object\n');
    await writeFile(
      join(apiDir, 'api.yml'),
      'openapi: 3.0.3\ninfo: {title: t, version: "1"}\npaths:\n  /things:\n    get:\n      responses:\n        "200":\n          description: ok\n          content:\n            application/json:\n              schema: {$ref: "../shared.yml"}\n',
    );
    const apiFile = join(apiDir, 'api.yml');
    await expect(startGateway(config({ restApiPath: [apiFile], useMessaging: false }), logger)).rejects.toThrow(
      /outside/,
    );
    running = await startGateway(
      config({ restApiPath: [apiFile], useMessaging: false, allowOutsideRefs: true }),
      logger,
    );
    expect((await fetch(`http://127.0.0.1:${running.port}/things`)).status).toBe(501);
  });

  it('keeps the body limit below the NATS max_payload (1 MB on the test server)', async () => {
    running = await startGateway(config({ bodyLimit: 1024 * 1024 }), logger);
    const url = `http://127.0.0.1:${running.port}/persons/luke`;
    await untilReady(running.port);
    const put = (size: number) =>
      fetch(url, { method: 'PUT', headers: { 'content-type': 'text/plain' }, body: 'x'.repeat(size) });
    expect((await put(1000 * 1000)).status).toBe(413);
    expect((await put(900 * 1000)).status).toBe(503); // forwarded; no service listens
  });

  it('refuses to start on a port that is taken, saying how to choose another, and releases what it opened', async () => {
    running = await startGateway(config({ useMessaging: false }), logger);
    const port = running.port;
    await expect(startGateway(config({ port }), logger)).rejects.toMatchObject({
      code: 'PORT_UNAVAILABLE',
      message: `port ${port} is already in use by another program; choose another port with --port ${port + 10} or GATEWAY_PORT=${port + 10}`,
    });
  });

  it.each([
    ['a request without Host', 'GET /persons HTTP/1.1\r\n\r\n', 400, 'BAD_REQUEST'],
    [
      'an expectation it cannot meet',
      'GET /persons HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n',
      417,
      'EXPECTATION_FAILED',
    ],
    ['a malformed request line', 'GET\r\n\r\n', 400, 'BAD_REQUEST'],
    ['CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', 405, 'METHOD_NOT_ALLOWED'],
  ])('answers %s with a JSON error, not the bare one Node sends', async (_what, raw, status, code) => {
    running = await startGateway(config({ useMessaging: false }), logger);
    const response = await sendRaw(running.port, raw);
    expect(response.status).toBe(status);
    expect(response.headers['content-type']).toBe('application/json; charset=utf-8');
    expect(JSON.parse(response.body)).toEqual({ error: expect.any(String), code });
  });

  it('cuts off a body trickled past the configured request timeout with a JSON 408', async () => {
    running = await startGateway(config({ requestTimeout: 300 }), logger);
    await untilReady(running.port);
    // One byte of the announced 100, then nothing: only the request timeout can end this (a forwarding gateway
    // reads the whole body before it sends anything).
    const response = await sendRaw(
      running.port,
      'PUT /persons/luke HTTP/1.1\r\nHost: x\r\nContent-Type: text/plain\r\nContent-Length: 100\r\n\r\nx',
      10_000,
    );
    expect(response.status).toBe(408);
    expect(JSON.parse(response.body)).toEqual({ error: expect.any(String), code: 'REQUEST_TIMEOUT' });
  });

  it('keeps the headers timeout within the request timeout, so a short request timeout alone is a valid setting', async () => {
    running = await startGateway(config({ useMessaging: false, requestTimeout: 300, headersTimeout: 60_000 }), logger);
    const response = await sendRaw(running.port, 'GET /persons HTTP/1.1\r\nHost: x\r\n', 10_000);
    expect(response.status).toBe(408);
    expect(JSON.parse(response.body)).toEqual({ error: expect.any(String), code: 'REQUEST_TIMEOUT' });
  });

  it('closes connections above the configured maximum at once and serves the ones within it', async () => {
    running = await startGateway(config({ useMessaging: false, maxConnections: 1 }), logger);
    const port = running.port;
    const first = connectSocket(port, '127.0.0.1');
    await once(first, 'connect');
    try {
      // The server drops the second connection as soon as it accepts it: the client sees it closed with no answer.
      const refused = connectSocket(port, '127.0.0.1');
      refused.on('error', () => undefined);
      refused.write('GET /persons HTTP/1.1\r\nHost: x\r\n\r\n');
      let answer = '';
      refused.on('data', (chunk: Buffer) => (answer += chunk.toString()));
      await once(refused, 'close');
      expect(answer).toBe('');
      first.write('GET /persons HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
      let text = '';
      first.on('data', (chunk: Buffer) => (text += chunk.toString()));
      await once(first, 'close');
      expect(text).toMatch(/^HTTP\/1\.1 501 /);
    } finally {
      first.destroy();
    }
  });

  it('describes a body over the message bus limit in bytes once encoded, while the body limit counts the bytes sent', async () => {
    running = await startGateway(config({ bodyLimit: 1024 * 1024 }), logger);
    const url = `http://127.0.0.1:${running.port}/persons/luke`;
    await untilReady(running.port);
    // 600 000 quotes are within the lowered body limit (983 040 bytes) and twice that once JSON-escaped.
    const response = await fetch(url, {
      method: 'PUT',
      headers: { 'content-type': 'text/plain' },
      body: '"'.repeat(600_000),
    });
    expect(response.status).toBe(413);
    const body = (await response.json()) as { error: string; code: string };
    expect(body.code).toBe('BODY_TOO_LARGE');
    expect(body.error).toMatch(/1048576/);
    expect(body.error).toMatch(/JSON-escaped/);
  });
});
