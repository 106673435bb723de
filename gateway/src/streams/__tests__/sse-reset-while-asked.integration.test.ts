import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type Msg, type NatsConnection } from 'nats';
import { recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';

const API = {
  openapi: '3.0.3',
  info: { title: 'events', version: '1' },
  paths: {
    '/events': {
      get: {
        operationId: 'events',
        'x-restbus-stream': { subject: 'things.events' },
        responses: {
          '200': {
            description: 'the events',
            content: { 'text/event-stream': { itemSchema: { type: 'object' } } },
          },
        },
      },
    },
  },
};

/** Clients that reset while the service is asked. */
const CLIENTS = 20;
const OPEN = 'restbus_gateway_streams_open';

let dir: string;
let nats: TestNatsServer;
let service: NatsConnection;
let gateway: GatewayProcess;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-sse-reset-'));
  await writeFile(join(dir, 'events.json'), JSON.stringify(API));
  nats = await startNatsServer();
  service = await connect({ servers: nats.url });
  // As many places as clients reset: a place one of them kept would turn the client that stays away.
  gateway = await startGatewayProcess({
    api: join(dir, 'events.json'),
    natsUrls: nats.url,
    extra: ['--streamMaxOpen', String(CLIENTS)],
  });
});

afterAll(async () => {
  await gateway?.stop();
  await service?.close();
  await nats?.stop();
  await rm(dir, { recursive: true, force: true });
});

/** Polls `read` until it gives `wanted`; what it gave last once the (generous) deadline passed. */
async function settle(read: () => Promise<number>, wanted: number): Promise<number> {
  let value = await read();
  for (let tries = 0; tries < 200 && value !== wanted; tries++) {
    await new Promise((done) => setTimeout(done, 50));
    value = await read();
  }
  return value;
}

function askForEvents(base: string): Socket {
  const [host, port] = base.split(':');
  const socket = connectTcp({ host, port: Number(port) });
  socket.on('error', () => undefined);
  socket.write(`GET /events HTTP/1.1\r\nHost: ${base}\r\nAccept: text/event-stream\r\n\r\n`);
  return socket;
}

describe('an SSE client that resets while the gateway asks the service', () => {
  it('leaves no open stream behind once the service says yes', async () => {
    const asked: Msg[] = [];
    const subscription = service.subscribe('easer.>', { callback: (_err, msg) => asked.push(msg) });
    await service.flush();
    const sockets = Array.from({ length: CLIENTS }, () => askForEvents(gateway.base));
    expect(await settle(async () => asked.length, CLIENTS)).toBe(CLIENTS);

    for (const socket of sockets) socket.resetAndDestroy();
    // The gateway reads the resets before the service answers: the answers find the responses closed.
    await new Promise((done) => setTimeout(done, 500));
    for (const msg of asked) msg.respond(JSON.stringify({ status: 200, body: { snapshot: 1 } }));
    await service.flush();

    const open = await settle(() => gateway.metric(OPEN), 0);
    recordHostileCounts('gateway SSE reset while asked', {
      tried: { resets: CLIENTS },
      found: { streamsLeftOpen: open },
    });
    expect(open).toBe(0);
    subscription.unsubscribe();
  });

  it('has their places free for a client that stays, whose stream it opens, counts and ends', async () => {
    service.subscribe('easer.>', {
      callback: (_err, msg) => msg.respond(JSON.stringify({ status: 200, body: { snapshot: 2 } })),
    });
    await service.flush();
    const before = await gateway.metric(OPEN);
    const socket = askForEvents(gateway.base);
    let text = '';
    socket.setEncoding('utf8');
    socket.on('data', (chunk: string) => (text += chunk));
    expect(await settle(async () => (text.includes('"snapshot":2') ? 1 : 0), 1)).toBe(1);
    expect(await gateway.metric(OPEN)).toBe(before + 1);
    socket.destroy();
    expect(await settle(() => gateway.metric(OPEN), before)).toBe(before);
  });
});
