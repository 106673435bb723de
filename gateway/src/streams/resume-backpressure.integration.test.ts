import { createServer, get, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect, type NatsConnection } from 'nats';
import { createLogger } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { createEventSources, type EventSources } from './event-sources';
import { createHeartbeat } from './heartbeat';
import { createSseWriter } from './sse-writer';
import { createStreamCounters } from './stream-counters';

let server: TestNatsServer;
let nc: NatsConnection;
let http: Server;
let sources: EventSources;
const heartbeat = createHeartbeat({ intervalMs: 15_000 });
const counters = createStreamCounters();

beforeAll(async () => {
  server = await startNatsServer();
  nc = await connect({ servers: server.url });
  sources = createEventSources({ nc, logger: createLogger({ name: 'test', level: 'silent', format: 'json' }) });
  // A queue far smaller than the replay: only backpressure keeps the replay from overflowing it.
  const sse = createSseWriter({
    heartbeat,
    counters,
    limits: { maxEvents: 20, maxBytes: 1024 * 1024, overflow: 'gap' },
  });
  http = createServer((req, res) => {
    const client = sse.open(res);
    const since = Number(new URL(req.url ?? '/', 'http://x').searchParams.get('since'));
    void sources
      .attach({ subject: 'replay.a', stream: 'REPLAY', since }, client)
      .then((detach) => client.onEnd(detach));
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
});
afterAll(async () => {
  heartbeat.close();
  http?.closeAllConnections();
  await new Promise((resolve) => http?.close(resolve));
  await sources?.close();
  await nc?.close();
  await server?.dispose();
});

it('replays a long absence at the pace the client reads, without a gap', async () => {
  const jsm = await nc.jetstreamManager();
  await jsm.streams.add({ name: 'REPLAY', subjects: ['replay.>'] });
  const js = nc.jetstream();
  const text = 'x'.repeat(8 * 1024);
  const total = 2000; // 16 MiB: more than the sockets hold
  await Promise.all(Array.from({ length: total }, (_, i) => js.publish('replay.a', JSON.stringify({ i, text }))));
  const { port } = http.address() as AddressInfo;
  const res = await new Promise<IncomingMessage>((resolve) =>
    get({ port, host: '127.0.0.1', path: '/?since=0' }, resolve),
  );
  const ids: number[] = [];
  let gaps = 0;
  let rest = '';
  await new Promise<void>((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`timed out after ${ids.length} events`)), 60_000);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      // A slow reader: each chunk is read a little later.
      res.pause();
      setTimeout(() => res.resume(), 2);
      const blocks = (rest + chunk).split('\n\n');
      rest = blocks.pop() ?? '';
      for (const block of blocks) {
        const id = /^id: (\d+)$/m.exec(block);
        if (id) ids.push(Number(id[1]));
        if (block.includes('event: gap')) gaps++;
      }
      if (ids.length === total || gaps > 0) {
        clearTimeout(timer);
        resolve();
      }
    });
  });
  res.destroy();
  expect(gaps).toBe(0);
  expect(ids).toEqual(Array.from({ length: total }, (_, i) => i + 1));
});
