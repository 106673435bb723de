import type { AddressInfo } from 'node:net';
import pino from 'pino';
import { createHttpServer, createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { createForwarder } from '../forward/create-forwarder';
import { createGateway, type Gateway } from '../app/create-gateway';
import { createMetrics } from '../observability/create-metrics';
import { testEndpoint } from './start-test-gateway';

const logger = pino({ level: 'silent' });
const endpoints = [
  testEndpoint('get', '/pets', {
    responses: { '200': { description: 'ok', content: { 'application/json': { example: [{ name: 'Rex' }] } } } },
  }),
  testEndpoint('post', '/pets', {
    responses: { '201': { description: 'made', content: { 'application/json': { example: { name: 'Rex' } } } } },
  }),
];

let nats: TestNatsServer;
const links: NatsLink[] = [];
const closers: Array<() => Promise<void>> = [];

beforeAll(async () => {
  nats = await startNatsServer();
  // Down from the start: each gateway starts while NATS is away, as after a restart of the whole stack.
  await nats.stop();
});
afterAll(async () => {
  for (const close of closers) await close();
  // Closed, not drained: NATS is down by now, and a drain would wait for it.
  for (const link of links) {
    await link.current()?.close();
    await link.drain();
  }
  await nats?.dispose();
});

/** A gateway as start-gateway makes it with these flags (-u, -m, --mockWrites), on port 0. */
async function startGateway(flags: { u?: boolean; m?: boolean; mockWrites?: boolean }) {
  const link = flags.u ? createNatsLink({ servers: nats.url, name: 'readiness', logger }) : undefined;
  if (link) links.push(link);
  const gateway: Gateway = createGateway({
    endpoints,
    topicPrefix: 'easer',
    basePath: '/',
    bodyLimit: 1024,
    forward: link && createForwarder({ link, timeoutMs: 1000 }),
    isConnected: () => !link || link.isConnected(),
    mock: flags.m,
    mockWrites: flags.mockWrites,
    metrics: createMetrics(),
    logger,
  });
  const server = createHttpServer(gateway.handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  closers.push(
    () =>
      new Promise((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  const ready = async () => {
    const response = await fetch(`${url}/-/ready`);
    return { status: response.status, body: (await response.json()) as unknown };
  };
  return { url, gateway, link, ready };
}

async function waitUntil(done: () => boolean): Promise<void> {
  for (let tries = 0; !done(); tries++) {
    if (tries === 200) throw new Error('not within 10 s');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('/-/ready says what the gateway will do with a call', () => {
  it('with -u -m, is ready while NATS is down, since the mock answers, and says who answers reads and writes', async () => {
    const hybrid = await startGateway({ u: true, m: true });
    expect(await hybrid.ready()).toEqual({
      status: 200,
      body: { status: 'ready', nats: 'disconnected', answering: { reads: 'mock', writes: 'unavailable' } },
    });
    // What it says is what it does: the read is mocked, the write is refused.
    const read = await fetch(`${hybrid.url}/pets`);
    expect([read.status, read.headers.get('x-restbus-mocked')]).toEqual([200, 'true']);
    expect((await fetch(`${hybrid.url}/pets`, { method: 'POST', body: '{}' })).status).toBe(503);

    await nats.start();
    try {
      await waitUntil(() => hybrid.link!.isConnected());
      expect(await hybrid.ready()).toEqual({
        status: 200,
        body: { status: 'ready', nats: 'connected', answering: { reads: 'service-or-mock', writes: 'service' } },
      });
    } finally {
      await nats.stop();
    }
    await waitUntil(() => !hybrid.link!.isConnected());
    hybrid.gateway.beginShutdown();
    expect(await hybrid.ready()).toMatchObject({ status: 503, body: { status: 'not ready' } });
  });

  it('with -u -m --mockWrites, says the mock answers writes too while NATS is down', async () => {
    const hybrid = await startGateway({ u: true, m: true, mockWrites: true });
    expect(await hybrid.ready()).toEqual({
      status: 200,
      body: { status: 'ready', nats: 'disconnected', answering: { reads: 'mock', writes: 'mock' } },
    });
    expect((await fetch(`${hybrid.url}/pets`, { method: 'POST', body: '{}' })).status).toBe(201);
  });

  it('with -u alone, is not ready until NATS is connected, and says so', async () => {
    const forwarding = await startGateway({ u: true });
    expect(await forwarding.ready()).toEqual({ status: 503, body: { status: 'not ready', nats: 'disconnected' } });
    await nats.start();
    try {
      await waitUntil(() => forwarding.link!.isConnected());
      expect(await forwarding.ready()).toEqual({ status: 200, body: { status: 'ready', nats: 'connected' } });
    } finally {
      await nats.stop();
    }
  });

  it('with -m alone, is ready and says the mock answers every call', async () => {
    const mock = await startGateway({ m: true });
    expect(await mock.ready()).toEqual({
      status: 200,
      body: { status: 'ready', answering: { reads: 'mock', writes: 'mock' } },
    });
  });
});
