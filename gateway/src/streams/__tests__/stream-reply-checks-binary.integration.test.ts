import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import type { IncomingMessage } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type JetStreamClient, type NatsConnection } from 'nats';
import { WebSocket } from 'ws';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startGatewayProcess, type GatewayProcess } from './gateway-process';
import { openSse, waitFor } from './sse-reader';

const EVENT = { type: 'object', required: ['n'], properties: { n: { type: 'integer' } } };
const REFUSAL = {
  type: 'object',
  required: ['code'],
  properties: { error: { type: 'string' }, code: { type: 'string' } },
};
const eventStream = { description: 'the events', content: { 'text/event-stream': { itemSchema: EVENT } } };
const refused = { description: 'not yours', content: { 'application/json': { schema: REFUSAL } } };
const API = {
  openapi: '3.0.3',
  info: { title: 'checked events', version: '1', description: 'streams whose replies are checked' },
  paths: {
    '/persons/{id}/events': {
      get: {
        operationId: 'personEvents',
        description: 'the events of one person, after its snapshot',
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        'x-restbus-stream': { subject: 'persons.{id}.events' },
        responses: { '200': eventStream, '403': refused },
      },
    },
    '/feed': {
      get: {
        operationId: 'feed',
        description: 'the feed, kept in JetStream',
        parameters: [{ name: 'snapshot', in: 'query', schema: { type: 'string' } }],
        'x-restbus-stream': { subject: 'feed.events', stream: 'CHECKED_FEED' },
        responses: { '200': eventStream },
      },
    },
  },
};

/** What the service answers the forwarded GET of person `id` (and of the feed with `?snapshot=id`). */
const SNAPSHOTS: Record<string, object> = {
  good: { status: 200, body: { n: 0 } },
  bad: { status: 200, body: { n: 'zero' } },
  // What the content type says does not matter: the body is an event's data.
  labelled: { status: 200, headers: { 'content-type': 'text/html' }, body: { n: 0 } },
  none: { status: 200 },
  forbidden: { status: 403, body: { error: 'not yours', code: 'FORBIDDEN' } },
  'forbidden-bad': { status: 403, body: { error: 'not yours' } },
};

let dir: string;
let nats: TestNatsServer;
let nc: NatsConnection;
let js: JetStreamClient;
let service: NatsConnection;
/** How many GETs the service has answered. */
let asked = 0;

/** The service: answers each operation's GET with SNAPSHOTS[id], as an envelope. */
async function startService(url: string): Promise<NatsConnection> {
  const connection = await connect({ servers: url });
  connection.subscribe('easer.>', {
    callback: (_err, msg) => {
      const message = JSON.parse(new TextDecoder().decode(msg.data)) as {
        request: { parameters: { uri: Record<string, string>; query: Record<string, string> } };
      };
      const { uri, query } = message.request.parameters;
      asked += 1;
      msg.respond(JSON.stringify(SNAPSHOTS[uri.id ?? query.snapshot ?? 'good']));
    },
  });
  await connection.flush();
  return connection;
}

/** The sum of a metric's series on /-/metrics (0 when it has none yet). */
async function total(gateway: GatewayProcess, name: string): Promise<number> {
  const text = await (await fetch(`http://${gateway.base}/-/metrics`)).text();
  return text
    .split('\n')
    .filter((line) => line.startsWith(`${name} `) || line.startsWith(`${name}{`))
    .reduce((sum, line) => sum + Number(line.split(' ').at(-1)), 0);
}

/** The answer a client gets when its stream does not open: status and JSON body. */
async function refusalOf(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const sse = await openSse(url);
  let text = '';
  for await (const chunk of sse.res) text += String(chunk);
  return { status: sse.res.statusCode!, body: JSON.parse(text) as Record<string, unknown> };
}

async function upgradeRefusalOf(url: string): Promise<{ status: number; body: Record<string, unknown> }> {
  const ws = new WebSocket(url);
  ws.on('error', () => undefined);
  const [, response] = (await once(ws, 'unexpected-response')) as [unknown, IncomingMessage];
  let text = '';
  for await (const chunk of response) text += String(chunk);
  return { status: response.statusCode!, body: JSON.parse(text) as Record<string, unknown> };
}

async function settleOpen(gateway: GatewayProcess): Promise<number> {
  for (let tries = 0; tries < 100 && (await gateway.metric('restbus_gateway_streams_open')) > 0; tries++) {
    await new Promise((done) => setTimeout(done, 20));
  }
  return gateway.metric('restbus_gateway_streams_open');
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-stream-reply-checks-'));
  await writeFile(join(dir, 'events.json'), JSON.stringify(API));
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  await (await nc.jetstreamManager()).streams.add({ name: 'CHECKED_FEED', subjects: ['feed.events'] });
  js = nc.jetstream();
  service = await startService(nats.url);
});
afterAll(async () => {
  await service?.close();
  await nc?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('restbus-gateway -u --validateReplies enforce serving a stream operation', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    // One place only: a refused opening that kept its place would leave no room for the next stream.
    const extra = ['--validateReplies', 'enforce', '--streamMaxOpen', '1'];
    gateway = await startGatewayProcess({ api: join(dir, 'events.json'), natsUrls: nats.url, extra });
  });
  afterAll(() => gateway?.stop());

  it('opens an SSE stream whose snapshot matches the event schema: the snapshot first, then a published event', async () => {
    const sse = await openSse(`http://${gateway.base}/persons/good/events`);
    expect(sse.res.statusCode).toBe(200);
    await waitFor(() => sse.events.length === 1, 'the snapshot');
    nc.publish('persons.good.events', '{"n":1}');
    await waitFor(() => sse.events.length === 2, 'the published event');
    expect(sse.events.map(({ event, data }) => ({ event, data }))).toEqual([
      { event: 'message', data: { n: 0 } },
      { event: 'message', data: { n: 1 } },
    ]);
    sse.res.destroy();
    expect(await settleOpen(gateway)).toBe(0);
  });

  it('opens a WebSocket stream whose snapshot matches the event schema: the snapshot frame, then a published one', async () => {
    const ws = new WebSocket(`ws://${gateway.base}/persons/good/events`);
    const frames: unknown[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await once(ws, 'open');
    await waitFor(() => frames.length === 1, 'the snapshot frame');
    nc.publish('persons.good.events', '{"n":2}');
    await waitFor(() => frames.length === 2, 'the published frame');
    expect(frames).toEqual([
      { event: 'message', data: { n: 0 } },
      { event: 'message', data: { n: 2 } },
    ]);
    ws.close();
    expect(await settleOpen(gateway)).toBe(0);
  });

  it('opens a stream whose service sends no snapshot, or labels its snapshot with another content type', async () => {
    const bare = await openSse(`http://${gateway.base}/persons/none/events`);
    expect(bare.res.statusCode).toBe(200);
    nc.publish('persons.none.events', '{"n":3}');
    await waitFor(() => bare.events.length === 1, 'the published event');
    expect(bare.events[0].data).toEqual({ n: 3 });
    bare.res.destroy();
    expect(await settleOpen(gateway)).toBe(0);

    const labelled = await openSse(`http://${gateway.base}/persons/labelled/events`);
    expect(labelled.res.statusCode).toBe(200);
    await waitFor(() => labelled.events.length === 1, 'the snapshot');
    expect(labelled.events[0].data).toEqual({ n: 0 });
    labelled.res.destroy();
    expect(await settleOpen(gateway)).toBe(0);
  });

  it('refuses a snapshot that breaks the event schema with 502 REPLY_INVALID, over SSE and WebSocket, and frees its place each time', async () => {
    const before = asked;
    for (let round = 0; round < 3; round++) {
      const sse = await refusalOf(`http://${gateway.base}/persons/bad/events`);
      expect(sse.status).toBe(502);
      expect(sse.body).toMatchObject({
        code: 'REPLY_INVALID',
        problems: [{ location: 'body/n', message: expect.any(String) as string }],
      });
      const ws = await upgradeRefusalOf(`ws://${gateway.base}/persons/bad/events`);
      expect(ws.status).toBe(502);
      expect(ws.body).toMatchObject({ code: 'REPLY_INVALID', problems: [{ location: 'body/n' }] });
    }
    expect(asked - before).toBe(6);
    expect(await gateway.metric('restbus_gateway_streams_open')).toBe(0);
    // --streamMaxOpen 1: six refusals kept no place, so the next stream opens.
    const sse = await openSse(`http://${gateway.base}/persons/good/events`);
    expect(sse.res.statusCode).toBe(200);
    await waitFor(() => sse.events.length === 1, 'the snapshot');
    sse.res.destroy();
    expect(await settleOpen(gateway)).toBe(0);
  });

  it('checks a refusal (non-2xx) of a stream operation as an HTTP answer, as any call’s', async () => {
    expect(await refusalOf(`http://${gateway.base}/persons/forbidden/events`)).toEqual({
      status: 403,
      body: { error: 'not yours', code: 'FORBIDDEN' },
    });
    const broken = await refusalOf(`http://${gateway.base}/persons/forbidden-bad/events`);
    expect(broken.status).toBe(502);
    expect(broken.body).toMatchObject({ code: 'REPLY_INVALID', problems: [{ location: 'body/code' }] });
  });

  it('checks the snapshot of a resuming client (?since=, Last-Event-ID) as a new client’s', async () => {
    for (let n = 1; n <= 2; n++) await js.publish('feed.events', JSON.stringify({ n }));
    const resumed = await openSse(`http://${gateway.base}/feed?since=1`);
    expect(resumed.res.statusCode).toBe(200);
    await waitFor(() => resumed.events.length === 1, 'the missed event');
    expect(resumed.events.map((e) => [e.id, e.data])).toEqual([['2', { n: 2 }]]);
    resumed.res.destroy();
    expect(await settleOpen(gateway)).toBe(0);

    const bySince = await refusalOf(`http://${gateway.base}/feed?since=1&snapshot=bad`);
    expect(bySince).toMatchObject({ status: 502, body: { code: 'REPLY_INVALID' } });
    const sse = await openSse(`http://${gateway.base}/feed?snapshot=bad`, { 'last-event-id': '1' });
    let text = '';
    for await (const chunk of sse.res) text += String(chunk);
    expect(sse.res.statusCode).toBe(502);
    expect(JSON.parse(text)).toMatchObject({ code: 'REPLY_INVALID' });
  });
});

describe('restbus-gateway -u --validateReplies report serving a stream operation', () => {
  let gateway: GatewayProcess;
  beforeAll(async () => {
    const extra = ['--validateReplies', 'report'];
    gateway = await startGatewayProcess({ api: join(dir, 'events.json'), natsUrls: nats.url, extra });
  });
  afterAll(() => gateway?.stop());

  it('counts no violation for streams whose snapshot matches the event schema, or that have none', async () => {
    for (const id of ['good', 'labelled', 'none']) {
      const sse = await openSse(`http://${gateway.base}/persons/${id}/events`);
      expect(sse.res.statusCode).toBe(200);
      nc.publish(`persons.${id}.events`, '{"n":5}');
      await waitFor(() => sse.events.some((e) => (e.data as { n?: number }).n === 5), 'the published event');
      sse.res.destroy();
    }
    const ws = new WebSocket(`ws://${gateway.base}/persons/good/events`);
    await once(ws, 'open');
    ws.close();
    expect(await total(gateway, 'restbus_reply_violations_total')).toBe(0);
  });

  it('opens a stream whose snapshot breaks the event schema, and counts its violation once per open', async () => {
    const before = await total(gateway, 'restbus_reply_violations_total');
    for (let round = 1; round <= 2; round++) {
      const sse = await openSse(`http://${gateway.base}/persons/bad/events`);
      expect(sse.res.statusCode).toBe(200);
      await waitFor(() => sse.events.length === 1, 'the snapshot, as the service sent it');
      expect(sse.events[0].data).toEqual({ n: 'zero' });
      sse.res.destroy();
      expect(await total(gateway, 'restbus_reply_violations_total')).toBe(before + round);
    }
  });
});
