import { once } from 'node:events';
import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from 'nats';
import { WebSocket, WebSocketServer } from 'ws';
import { createLogger, sendError, isRestbusError } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { createEventSources, type EventSources, type StreamSpec } from './event-sources';
import { createHeartbeat } from './heartbeat';
import { createSseWriter } from './sse-writer';
import { createStreamCounters } from './stream-counters';
import { createStreamOpener, type ServiceAnswer, type StreamOpener } from './stream-opener';
import { createStreamRegistry, type StreamRegistry } from './stream-registry';
import { createWsSender } from './ws-sender';

let nats: TestNatsServer;
let nc: NatsConnection;
let http: Server;
let wss: WebSocketServer;
let sources: EventSources;
let registry: StreamRegistry;
let opener: StreamOpener;
let base: string;
const heartbeat = createHeartbeat({ intervalMs: 15_000 });
const logger = createLogger({ name: 'test', level: 'silent', format: 'json' });
/** What the "service" answers the forwarded GET, per test; it may publish while it answers. */
let service: () => Promise<ServiceAnswer>;
/** The stream the requests open, per test. */
let spec: StreamSpec = { subject: 'open.persons' };

beforeAll(async () => {
  nats = await startNatsServer();
  nc = await connect({ servers: nats.url });
  const counters = createStreamCounters();
  sources = createEventSources({ nc, logger });
  registry = createStreamRegistry({ maxOpen: 10, counters });
  opener = createStreamOpener({
    sources,
    registry,
    sse: createSseWriter({ heartbeat, counters }),
    ws: createWsSender({ heartbeat, counters }),
    logger,
  });
  wss = new WebSocketServer({ noServer: true });
  http = createServer((_req, res) => {
    opener
      .openSse({ res, spec, ask: () => service() })
      .then((outcome) => {
        if (!outcome.opened) res.writeHead(outcome.reply.status).end(outcome.reply.body);
      })
      .catch((err: unknown) => sendError(res, isRestbusError(err) ? err.code : 'INTERNAL', String(err)));
  });
  http.on('upgrade', (req, socket, head) => {
    void opener
      .openWebSocket({
        spec,
        ask: () => service(),
        accept: () => new Promise((resolve) => wss.handleUpgrade(req, socket, head, resolve)),
      })
      .then((outcome) => {
        if (!outcome.opened)
          socket.end(`HTTP/1.1 ${outcome.reply.status} No\r\nconnection: close\r\ncontent-length: 0\r\n\r\n`);
      });
  });
  http.listen(0, '127.0.0.1');
  await once(http, 'listening');
  base = `127.0.0.1:${(http.address() as AddressInfo).port}`;
});
afterAll(async () => {
  heartbeat.close();
  registry?.endAll();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
  await sources?.close();
  await nc?.close();
  await nats?.dispose();
});

const waitFor = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 500 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

function openSse(): Promise<IncomingMessage> {
  return new Promise((resolve) => get(`http://${base}/`, resolve));
}

describe('createStreamOpener', () => {
  it('answers what the service answered when it is not 2xx, and streams nothing', async () => {
    service = async () => {
      nc.publish('open.persons', '{"secret":true}');
      await nc.flush();
      return { status: 403, body: Buffer.from('{"error":"forbidden"}') };
    };
    const res = await openSse();
    expect(res.statusCode).toBe(403);
    let body = '';
    for await (const chunk of res) body += String(chunk);
    expect(body).toBe('{"error":"forbidden"}');
    expect(registry.open()).toBe(0);
    expect(sources.size()).toBe(0);
  });

  it('opens the stream on 2xx with the service’s body as first event, losing nothing published meanwhile', async () => {
    service = async () => {
      // Published after the service looked, before its answer reached the gateway.
      nc.publish('open.persons', '{"n":1}');
      await nc.flush();
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { status: 200, body: Buffer.from('{"snapshot":[]}') };
    };
    const res = await openSse();
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    await waitFor(() => registry.open() === 1, 'the stream to open');
    nc.publish('open.persons', '{"n":2}');
    let text = '';
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => (text += chunk));
    await waitFor(() => text.includes('{"n":2}'), 'the live event');
    const data = [...text.matchAll(/^data: (.*)$/gm)].map((m) => m[1]);
    expect(data).toEqual(['{"snapshot":[]}', '{"n":1}', '{"n":2}']);
    res.destroy();
    await waitFor(() => registry.open() === 0 && sources.size() === 0, 'the stream to close');
  });

  it('gives the snapshot the stream sequence its service says it reaches, and sends no event it already holds', async () => {
    const jsm = await nc.jetstreamManager();
    await jsm.streams.add({ name: 'OPENED', subjects: ['opened.>'] });
    const js = nc.jetstream();
    spec = { subject: 'opened.persons', stream: 'OPENED' };
    service = async () => {
      // Two writes while the service reads: its snapshot holds the first (sequence 1), not the second.
      await js.publish('opened.persons', '{"n":1}');
      const { seq } = await js.publish('opened.persons', '{"n":2}');
      await new Promise((resolve) => setTimeout(resolve, 50));
      return { status: 200, body: Buffer.from('{"snapshot":[1]}'), snapshotSeq: seq - 1 };
    };
    try {
      const res = await openSse();
      let text = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => (text += chunk));
      await waitFor(() => text.includes('{"n":2}'), 'the event after the snapshot');
      const events = [...text.matchAll(/^id: (\d+)\nevent: message\ndata: (.*)$/gm)].map((m) => [m[1], m[2]]);
      expect(events).toEqual([
        ['1', '{"snapshot":[1]}'],
        ['2', '{"n":2}'],
      ]);
      res.destroy();
      await waitFor(() => registry.open() === 0 && sources.size() === 0, 'the stream to close');
    } finally {
      spec = { subject: 'open.persons' };
    }
  });

  it('upgrades a WebSocket only when the service says yes, and refuses it with the service’s status otherwise', async () => {
    service = async () => ({ status: 404 });
    const refused = new WebSocket(`ws://${base}/`);
    const [, response] = (await once(refused, 'unexpected-response')) as [unknown, IncomingMessage];
    expect(response.statusCode).toBe(404);

    service = async () => ({ status: 200, body: Buffer.from('{"snapshot":1}') });
    const ws = new WebSocket(`ws://${base}/`);
    const frames: unknown[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data))));
    await once(ws, 'open');
    await waitFor(() => registry.open() === 1, 'the stream to open');
    nc.publish('open.persons', '{"n":3}');
    await waitFor(() => frames.length === 2, 'two frames');
    expect(frames).toEqual([
      { event: 'message', data: { snapshot: 1 } },
      { event: 'message', data: { n: 3 } },
    ]);
    ws.close();
    await waitFor(() => registry.open() === 0, 'the stream to close');
  });
});
