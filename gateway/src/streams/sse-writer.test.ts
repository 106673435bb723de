import { createServer, get, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createHeartbeat, type Heartbeat } from './heartbeat';
import { createSseWriter, type SseWriterOptions } from './sse-writer';
import { createStreamCounters, type StreamCounters } from './stream-counters';
import { createStreamEvent } from './stream-event';
import type { StreamClient } from './stream-client';

interface Harness {
  url: string;
  clients: StreamClient[];
  counters: StreamCounters;
  heartbeat: Heartbeat;
  server: Server;
}

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const { server, heartbeat, clients } of harnesses.splice(0)) {
    for (const client of clients) client.end();
    heartbeat.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** A real HTTP server on port 0 whose every request opens an SSE stream. */
async function startSseServer(options: Partial<SseWriterOptions> & { heartbeatMs?: number } = {}): Promise<Harness> {
  const counters = createStreamCounters();
  const heartbeat = createHeartbeat({ intervalMs: options.heartbeatMs ?? 15_000 });
  const writer = createSseWriter({ heartbeat, counters, ...options });
  const clients: StreamClient[] = [];
  const server = createServer((_req: IncomingMessage, res: ServerResponse) => {
    clients.push(writer.open(res, { 'x-request-id': 'r1' }));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const harness = {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    clients,
    counters,
    heartbeat,
    server,
  };
  harnesses.push(harness);
  return harness;
}

function open(url: string): Promise<IncomingMessage> {
  return new Promise((resolve, reject) =>
    get(url, { headers: { accept: 'text/event-stream' } }, resolve).on('error', reject),
  );
}

/** Reads the response's text until `done` says it has enough. */
function readUntil(res: IncomingMessage, done: (text: string) => boolean, timeoutMs = 5000): Promise<string> {
  return new Promise((resolve, reject) => {
    let text = '';
    const timer = setTimeout(() => reject(new Error(`timed out; got ${JSON.stringify(text.slice(-500))}`)), timeoutMs);
    res.setEncoding('utf8');
    res.on('data', (chunk: string) => {
      text += chunk;
      if (done(text)) {
        clearTimeout(timer);
        res.removeAllListeners('data');
        resolve(text);
      }
    });
  });
}

const waitFor = async (check: () => boolean): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error('condition not met within 2 s');
};

describe('createSseWriter', () => {
  it('answers 200 with the event-stream headers that keep proxies and compression away', async () => {
    const { url } = await startSseServer();
    const res = await open(url);
    expect(res.statusCode).toBe(200);
    expect(res.headers['content-type']).toBe('text/event-stream; charset=utf-8');
    expect(res.headers['cache-control']).toBe('no-cache, no-transform');
    expect(res.headers['x-accel-buffering']).toBe('no');
    expect(res.headers['x-request-id']).toBe('r1');
    expect(res.headers['content-encoding']).toBeUndefined();
    res.destroy();
  });

  it('sends retry once, then each event with its id, name and data lines', async () => {
    const harness = await startSseServer({ retryMs: 2500 });
    const res = await open(harness.url);
    await waitFor(() => harness.clients.length === 1);
    harness.clients[0].deliver(createStreamEvent({ event: 'message', data: '{"a":1}', seq: 5 }));
    harness.clients[0].deliver(createStreamEvent({ event: 'message', data: '[\n1\n]' }));
    const text = await readUntil(res, (t) => t.includes('data: ]'));
    expect(text).toBe(
      'retry: 2500\n\nid: 5\nevent: message\ndata: {"a":1}\n\nevent: message\ndata: [\ndata: 1\ndata: ]\n\n',
    );
    expect(harness.counters.snapshot()).toMatchObject({ openStreams: 1, eventsSent: 2 });
    res.destroy();
  });

  it('sends a comment on every heartbeat so that idle streams stay open through proxies', async () => {
    const { url } = await startSseServer({ heartbeatMs: 30 });
    const res = await open(url);
    const text = await readUntil(res, (t) => t.split(':\n\n').length > 3);
    expect(text.startsWith('retry: ')).toBe(true);
    res.destroy();
  });

  it('counts the stream closed and leaves the heartbeat when the client goes away', async () => {
    const harness = await startSseServer();
    const res = await open(harness.url);
    await waitFor(() => harness.clients.length === 1);
    const ended = jest.fn();
    harness.clients[0].onEnd(ended);
    expect(harness.heartbeat.size()).toBe(1);
    res.destroy();
    await waitFor(() => ended.mock.calls.length === 1);
    expect(harness.counters.snapshot().openStreams).toBe(0);
    expect(harness.heartbeat.size()).toBe(0);
  });

  it('gives a client that stops reading a gap event saying how many it missed, and every other event in order', async () => {
    const harness = await startSseServer({ limits: { maxEvents: 1000, maxBytes: 256 * 1024, overflow: 'gap' } });
    const res = await open(harness.url);
    await waitFor(() => harness.clients.length === 1);
    res.pause();
    const chunk = 'x'.repeat(64 * 1024);
    const total = 400; // 25 MiB: far past what the sockets and the queue hold
    for (let seq = 1; seq <= total; seq++) {
      harness.clients[0].deliver(createStreamEvent({ event: 'message', data: JSON.stringify(chunk), seq }));
    }
    harness.clients[0].deliver(createStreamEvent({ event: 'message', data: '"last"', seq: total + 1 }));
    res.resume();
    const text = await readUntil(res, (t) => t.includes('data: "last"'), 20_000);
    const ids = [...text.matchAll(/^id: (\d+)$/gm)].map((m) => Number(m[1]));
    const gaps = [...text.matchAll(/^event: gap\ndata: (.*)$/gm)].map((m) => JSON.parse(m[1]) as { missed: number });
    expect(gaps).toHaveLength(1);
    expect(gaps[0].missed).toBeGreaterThan(0);
    expect(ids.length + gaps[0].missed).toBe(total + 1);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    expect(harness.counters.snapshot().gaps).toBe(1);
    res.destroy();
  });

  it('cuts a client that stops reading under the close policy', async () => {
    const harness = await startSseServer({ limits: { maxEvents: 10, maxBytes: 1024 * 1024, overflow: 'close' } });
    const res = await open(harness.url);
    await waitFor(() => harness.clients.length === 1);
    res.pause();
    const ended = jest.fn();
    harness.clients[0].onEnd(ended);
    const chunk = JSON.stringify('x'.repeat(64 * 1024));
    for (let seq = 1; seq <= 400 && ended.mock.calls.length === 0; seq++) {
      harness.clients[0].deliver(createStreamEvent({ event: 'message', data: chunk, seq }));
    }
    await waitFor(() => ended.mock.calls.length === 1);
    expect(harness.counters.snapshot()).toMatchObject({ cuts: 1, openStreams: 0 });
    res.destroy();
  });

  it('counts a stream opened after its client went away as closed, and takes it out of the heartbeat', async () => {
    const counters = createStreamCounters();
    const heartbeat = createHeartbeat({ intervalMs: 15_000 });
    const writer = createSseWriter({ heartbeat, counters });
    const ended = jest.fn();
    // As the gateway does when the client resets while the service is asked: the stream opens on a closed response.
    const server = createServer((_req, res) => {
      res.once('close', () => writer.open(res).onEnd(ended));
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const request = get(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    request.on('error', () => undefined);
    server.once('request', () => request.destroy());
    await waitFor(() => ended.mock.calls.length === 1);
    expect(counters.snapshot().openStreams).toBe(0);
    expect(heartbeat.size()).toBe(0);
    heartbeat.close();
    await new Promise((resolve) => server.close(resolve));
  });
});
