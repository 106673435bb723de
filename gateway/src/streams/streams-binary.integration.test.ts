import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, type JetStreamClient, type NatsConnection } from 'nats';
import { WebSocket } from 'ws';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { openSse, waitFor } from './__tests__/sse-reader';

// The program as users run it (`npx tsc -b gateway` builds it).
const MAIN = resolve(__dirname, '../../dist/main.js');

const EVENT = {
  type: 'object',
  properties: { n: { type: 'integer' } },
  example: { n: 1 },
  examples: [{ n: 2 }, { n: 3 }],
};
const eventStream = (item: object) => ({
  description: 'the events',
  content: { 'text/event-stream': { itemSchema: item } },
});
const API = {
  openapi: '3.0.3',
  info: { title: 'events', version: '1', description: 'streams' },
  paths: {
    '/persons/{id}/events': {
      get: {
        operationId: 'personEvents',
        description: 'the events of one person',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        'x-restbus-stream': { subject: 'persons.{id}.events' },
        responses: { '200': eventStream(EVENT), '403': { description: 'not yours' } },
      },
    },
    '/feed': {
      get: {
        operationId: 'feed',
        description: 'the feed, kept in JetStream',
        'x-restbus-stream': { subject: 'feed.events', stream: 'FEED' },
        responses: { '200': eventStream({ type: 'object', properties: { n: { type: 'integer' } } }) },
      },
    },
    '/plain': {
      get: {
        operationId: 'plain',
        description: 'no stream',
        responses: {
          '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } },
        },
      },
    },
  },
};

interface Running {
  base: string;
  child: ChildProcess;
}

let dir: string;
let nats: TestNatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
const children: ChildProcess[] = [];

/** `restbus-gateway -r events.json <extra>` on port 0, once it listens (and, with -u, its NATS link is up). */
async function startGateway(extra: string[], file = join(dir, 'events.json')): Promise<Running> {
  const args = [MAIN, '-r', file, '-n', nats.url, '-p', '0', '--log-format', 'json', ...extra];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  children.push(child);
  let output = '';
  child.stderr!.on('data', (chunk: Buffer) => (output += String(chunk)));
  const listening = new Promise<number>((done, fail) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      const entry = JSON.parse(line) as Record<string, unknown>;
      if (entry.msg === 'gateway listening') done(Number(entry.port));
    });
    child.once('exit', () => fail(new Error(`the gateway stopped before it listened:\n${output}`)));
  });
  const base = `127.0.0.1:${await listening}`;
  if (extra.includes('-u')) {
    for (let tries = 0; ; tries++) {
      const ready = (await (await fetch(`http://${base}/-/ready`)).json()) as { nats?: string };
      if (ready.nats === 'connected') break;
      if (tries === 100) throw new Error('the gateway did not connect to NATS within 5 s');
      await new Promise((done) => setTimeout(done, 50));
    }
  }
  return { base, child };
}

async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  const exited = once(running.child, 'exit');
  running.child.kill('SIGTERM');
  await exited;
}

async function metric(running: Running, name: string): Promise<number> {
  const text = await (await fetch(`http://${running.base}/-/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `));
  if (!line) throw new Error(`no metric ${name} in /-/metrics`);
  return Number(line.split(' ').at(-1));
}

/**
 * The service: a NATS responder on every operation's subject; person "forbidden" is not the caller's to read, person
 * "slow" takes 1.2 s to answer.
 */
async function startService(url: string): Promise<NatsConnection> {
  const service = await connect({ servers: url });
  service.subscribe('easer.>', {
    callback: (_err, msg) => {
      const message = JSON.parse(new TextDecoder().decode(msg.data)) as {
        request: { parameters: { uri: Record<string, string> } };
      };
      const id = message.request.parameters.uri.id;
      const reply =
        id === 'forbidden'
          ? { status: 403, body: { error: 'not yours', code: 'FORBIDDEN' } }
          : id !== undefined
            ? { status: 200, body: { snapshot: id } }
            : { status: 200 };
      // Person "slow" is answered after socket.io's one second on upgrades it does not serve.
      if (id === 'slow') setTimeout(() => msg.respond(JSON.stringify(reply)), 1200);
      else msg.respond(JSON.stringify(reply));
    },
  });
  await service.flush();
  return service;
}

let service: NatsConnection;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-streams-'));
  await writeFile(join(dir, 'events.json'), JSON.stringify(API));
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'FEED', subjects: ['feed.events'] });
  js = nc.jetstream();
  service = await startService(nats.url);
});
afterAll(async () => {
  for (const child of children) if (child.exitCode === null) child.kill('SIGKILL');
  await service?.close();
  await nc?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('restbus-gateway -u serving a stream operation', () => {
  let gateway: Running;
  beforeAll(async () => {
    gateway = await startGateway(['-u', '--streamHeartbeat', '1']);
  });
  afterAll(() => stop(gateway));

  it('streams SSE: the service’s snapshot first, then the events published on the expanded subject, counted in /-/metrics', async () => {
    const sse = await openSse(`http://${gateway.base}/persons/p1/events`);
    expect(sse.res.statusCode).toBe(200);
    expect(sse.res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await waitFor(() => sse.events.length === 1, 'the snapshot');
    expect(await metric(gateway, 'restbus_gateway_streams_open')).toBe(1);
    nc.publish('persons.p2.events', '{"n":0}');
    nc.publish('persons.p1.events', '{"n":1}');
    nc.publish('persons.p1.events', '{"n":2}');
    await waitFor(() => sse.events.length === 3, 'two live events');
    expect(sse.events.map(({ id, event, data }) => ({ id, event, data }))).toEqual([
      { event: 'message', data: { snapshot: 'p1' } },
      { event: 'message', data: { n: 1 } },
      { event: 'message', data: { n: 2 } },
    ]);
    // --streamHeartbeat 1: an idle stream gets a comment every second.
    await waitFor(() => sse.text().includes(':\n\n'), 'a keep-alive comment', 3000);
    sse.res.destroy();
    for (let tries = 0; tries < 100 && (await metric(gateway, 'restbus_gateway_streams_open')) > 0; tries++) {
      await new Promise((done) => setTimeout(done, 20));
    }
    expect(await metric(gateway, 'restbus_gateway_streams_open')).toBe(0);
    expect(await metric(gateway, 'restbus_gateway_stream_events_total')).toBeGreaterThanOrEqual(3);
  });

  it('answers what the service answers when it refuses (403), and sends no event', async () => {
    const sse = await openSse(`http://${gateway.base}/persons/forbidden/events`);
    nc.publish('persons.forbidden.events', '{"secret":true}');
    let body = '';
    for await (const chunk of sse.res) body += String(chunk);
    expect(sse.res.statusCode).toBe(403);
    expect(JSON.parse(body)).toEqual({ error: 'not yours', code: 'FORBIDDEN' });
    expect(sse.events).toEqual([]);
  });

  it('refuses a path parameter that is not one NATS token with 400 REQUEST_INVALID', async () => {
    const response = await fetch(`http://${gateway.base}/persons/a.b/events`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(response.status).toBe(400);
    expect(await response.json()).toMatchObject({ code: 'REQUEST_INVALID' });
  });

  it('answers a GET that does not accept text/event-stream as an ordinary call: the service’s reply', async () => {
    const response = await fetch(`http://${gateway.base}/persons/p1/events`, {
      headers: { accept: 'application/json' },
    });
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({ snapshot: 'p1' });
  });

  it('resumes after Last-Event-ID or ?since= from JetStream, with no gap and no duplicate', async () => {
    for (let n = 1; n <= 3; n++) await js.publish('feed.events', JSON.stringify({ n }));
    const first = await openSse(`http://${gateway.base}/feed`, { 'last-event-id': '1' });
    expect(first.res.statusCode).toBe(200);
    await waitFor(() => first.events.length === 2, 'the two events after 1');
    await js.publish('feed.events', JSON.stringify({ n: 4 }));
    await waitFor(() => first.events.length === 3, 'the live event');
    expect(first.events.map((e) => [e.id, e.data])).toEqual([
      ['2', { n: 2 }],
      ['3', { n: 3 }],
      ['4', { n: 4 }],
    ]);
    first.res.destroy();
    await js.publish('feed.events', JSON.stringify({ n: 5 }));
    await js.publish('feed.events', JSON.stringify({ n: 6 }));
    const again = await openSse(`http://${gateway.base}/feed?since=4`);
    await waitFor(() => again.events.length === 2, 'the two missed events');
    await js.publish('feed.events', JSON.stringify({ n: 7 }));
    await waitFor(() => again.events.length === 3, 'the live event');
    expect(again.events.map((e) => e.id)).toEqual(['5', '6', '7']);
    again.res.destroy();
  });

  it('streams JSON frames to a WebSocket client on the same path, and refuses one the service refuses', async () => {
    const ws = new WebSocket(`ws://${gateway.base}/persons/p3/events`);
    const frames: unknown[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await once(ws, 'open');
    await waitFor(() => frames.length === 1, 'the snapshot frame');
    nc.publish('persons.p3.events', '{"n":9}');
    await waitFor(() => frames.length === 2, 'the live frame');
    expect(frames).toEqual([
      { event: 'message', data: { snapshot: 'p3' } },
      { event: 'message', data: { n: 9 } },
    ]);
    ws.close();

    const refused = new WebSocket(`ws://${gateway.base}/persons/forbidden/events`);
    const [, response] = (await once(refused, 'unexpected-response')) as [unknown, IncomingMessage];
    expect(response.statusCode).toBe(403);
  });

  it('answers an upgrade on a path that is no stream operation with 400, and on an unknown path with 404', async () => {
    const statusOf = async (path: string): Promise<number> => {
      const ws = new WebSocket(`ws://${gateway.base}${path}`);
      ws.on('error', () => undefined);
      const [, response] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
      response.resume();
      return response.statusCode ?? 0;
    };
    expect(await statusOf('/plain')).toBe(400);
    expect(await statusOf('/nowhere')).toBe(404);
  });
});

describe('restbus-gateway -m serving a stream operation', () => {
  let gateway: Running;
  beforeAll(async () => {
    gateway = await startGateway(['-m', '--mockEventInterval', '50']);
  });
  afterAll(() => stop(gateway));

  it("sends the operation's examples as events, over SSE and over a WebSocket, then keeps the stream open", async () => {
    const sse = await openSse(`http://${gateway.base}/persons/x/events`);
    expect(sse.res.statusCode).toBe(200);
    await waitFor(() => sse.events.length === 3, 'the three examples');
    expect(sse.events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    await new Promise((done) => setTimeout(done, 200));
    expect(sse.res.readableEnded).toBe(false);
    expect(sse.events).toHaveLength(3);
    sse.res.destroy();

    const ws = new WebSocket(`ws://${gateway.base}/persons/x/events`);
    const frames: unknown[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await waitFor(() => frames.length === 3, 'the three examples as frames');
    expect(frames).toEqual([1, 2, 3].map((n) => ({ event: 'message', data: { n } })));
    ws.close();
  });

  it('samples the item schema when the operation has no examples', async () => {
    const sse = await openSse(`http://${gateway.base}/feed`);
    await waitFor(() => sse.events.length === 1, 'one sample');
    expect(sse.events[0].data).toEqual({ n: 0 });
    sse.res.destroy();
  });
});

describe('restbus-gateway -u -m serving a stream operation no service answers', () => {
  let gateway: Running;
  beforeAll(async () => {
    // Another topic prefix: nobody answers its subjects.
    gateway = await startGateway(['-u', '-m', '--topicPrefix', 'nobody', '--mockEventInterval', '20']);
  });
  afterAll(() => stop(gateway));

  it('streams the examples in its place, marked as the mock’s', async () => {
    const sse = await openSse(`http://${gateway.base}/persons/x/events`);
    expect(sse.res.statusCode).toBe(200);
    expect(sse.res.headers['x-restbus-mocked']).toBe('true');
    await waitFor(() => sse.events.length === 3, 'the three examples');
    expect(sse.events.map((e) => e.data)).toEqual([{ n: 1 }, { n: 2 }, { n: 3 }]);
    sse.res.destroy();
  });
});

describe('restbus-gateway --streamMaxOpen', () => {
  let gateway: Running;
  beforeAll(async () => {
    gateway = await startGateway(['-m', '--streamMaxOpen', '1']);
  });
  afterAll(() => stop(gateway));

  it('refuses a stream past the maximum with Retry-After, and counts it', async () => {
    const open = await openSse(`http://${gateway.base}/persons/x/events`);
    const refused = await fetch(`http://${gateway.base}/persons/y/events`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(refused.status).toBe(503);
    expect(refused.headers.get('retry-after')).toBe('5');
    expect(await refused.json()).toMatchObject({ code: 'STREAMS_FULL' });
    expect(await metric(gateway, 'restbus_gateway_streams_refused_total')).toBe(1);
    open.res.destroy();
  });
});

describe('restbus-gateway without -u or -m', () => {
  let gateway: Running;
  beforeAll(async () => {
    gateway = await startGateway([]);
  });
  afterAll(() => stop(gateway));

  it('answers a stream operation 501 as any operation, over SSE and to a WebSocket', async () => {
    const response = await fetch(`http://${gateway.base}/persons/x/events`, {
      headers: { accept: 'text/event-stream' },
    });
    expect(response.status).toBe(501);
    expect(await response.json()).toEqual({
      error: 'The endpoint is either not implemented or `operationId` is ignored',
    });
    const ws = new WebSocket(`ws://${gateway.base}/persons/x/events`);
    ws.on('error', () => undefined);
    const [, refused] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
    refused.resume();
    expect(refused.statusCode).toBe(501);
  });
});

describe('restbus-gateway -u -w serving a stream operation beside socket.io', () => {
  let gateway: Running;
  beforeAll(async () => {
    gateway = await startGateway(['-u', '-w', '-i', 'chat.room1']);
  });
  afterAll(() => stop(gateway));

  it('opens a stream’s WebSocket whose service answers after socket.io’s one-second limit on other paths’ upgrades', async () => {
    const ws = new WebSocket(`ws://${gateway.base}/persons/slow/events`);
    const frames: unknown[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await once(ws, 'open');
    nc.publish('persons.slow.events', '{"n":5}');
    await waitFor(() => frames.length === 2, 'the live frame');
    expect(frames).toEqual([
      { event: 'message', data: { snapshot: 'slow' } },
      { event: 'message', data: { n: 5 } },
    ]);
    expect(ws.readyState).toBe(WebSocket.OPEN);
    ws.close();
  });
});

describe('restbus-gateway reloading with open streams', () => {
  it('ends on SIGHUP the streams of an operation the files no longer have, and keeps the others', async () => {
    const file = join(dir, 'reloaded.json');
    await writeFile(file, JSON.stringify(API));
    const gateway = await startGateway(['-u'], file);
    try {
      const removed = await openSse(`http://${gateway.base}/persons/p6/events`);
      const kept = await openSse(`http://${gateway.base}/feed`);
      await waitFor(() => removed.events.length === 1, 'the snapshot');
      const ended = once(removed.res, 'close');
      const { '/persons/{id}/events': _gone, ...paths } = API.paths;
      await writeFile(file, JSON.stringify({ ...API, paths }));
      gateway.child.kill('SIGHUP');
      await ended;
      await js.publish('feed.events', JSON.stringify({ n: 'after reload' }));
      await waitFor(() => kept.events.length === 1, 'the event on the kept stream');
      expect(kept.res.destroyed).toBe(false);
      kept.res.destroy();
    } finally {
      await stop(gateway);
    }
  });
});

describe('restbus-gateway stopping with open streams', () => {
  it('ends every open stream on SIGTERM and exits', async () => {
    const gateway = await startGateway(['-u']);
    const sse = await openSse(`http://${gateway.base}/persons/p4/events`);
    await waitFor(() => sse.events.length === 1, 'the snapshot');
    const ws = new WebSocket(`ws://${gateway.base}/persons/p4/events`);
    await once(ws, 'open');
    const ended = once(sse.res, 'close');
    const closed = once(ws, 'close');
    const exited = once(gateway.child, 'exit');
    gateway.child.kill('SIGTERM');
    await Promise.all([ended, closed]);
    const [code] = (await exited) as [number];
    expect(code).toBe(0);
  });
});
