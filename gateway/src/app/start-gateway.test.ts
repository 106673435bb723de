import { copyFile, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
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
});
