import { once } from 'node:events';
import type { AddressInfo } from 'node:net';
import { WebSocket, WebSocketServer } from 'ws';
import { createHeartbeat, type Heartbeat } from './heartbeat';
import { createStreamCounters, type StreamCounters } from './stream-counters';
import { createStreamEvent } from './stream-event';
import type { StreamClient } from './stream-client';
import { createWsSender, type WsSenderOptions } from './ws-sender';

interface Harness {
  url: string;
  clients: StreamClient[];
  counters: StreamCounters;
  heartbeat: Heartbeat;
  server: WebSocketServer;
}

const harnesses: Harness[] = [];
afterEach(async () => {
  for (const { server, heartbeat } of harnesses.splice(0)) {
    heartbeat.close();
    for (const ws of server.clients) ws.terminate();
    await new Promise((resolve) => server.close(resolve));
  }
});

async function startWsServer(options: Partial<WsSenderOptions> & { heartbeatMs?: number } = {}): Promise<Harness> {
  const counters = createStreamCounters();
  const heartbeat = createHeartbeat({ intervalMs: options.heartbeatMs ?? 15_000 });
  const sender = createWsSender({ heartbeat, counters, ...options });
  const clients: StreamClient[] = [];
  const server = new WebSocketServer({ port: 0, host: '127.0.0.1' });
  server.on('connection', (ws) => clients.push(sender.open(ws)));
  await once(server, 'listening');
  const harness = {
    url: `ws://127.0.0.1:${(server.address() as AddressInfo).port}/`,
    clients,
    counters,
    heartbeat,
    server,
  };
  harnesses.push(harness);
  return harness;
}

// A deadline for a hang only (issue 45): the conditions come true in milliseconds on a quiet machine.
const waitFor = async (check: () => boolean, ms = 30_000): Promise<void> => {
  for (let i = 0; i < ms / 10 && !check(); i++) await new Promise((resolve) => setTimeout(resolve, 10));
  if (!check()) throw new Error(`condition not met within ${ms} ms`);
};

describe('createWsSender', () => {
  it('sends each event as a JSON text frame with id, event and data', async () => {
    const harness = await startWsServer();
    const ws = new WebSocket(harness.url);
    const frames: { text: string; binary: boolean }[] = [];
    ws.on('message', (data, binary) => frames.push({ text: String(data), binary }));
    await waitFor(() => harness.clients.length === 1);
    harness.clients[0].deliver(createStreamEvent({ event: 'message', data: '{"a":1}', seq: 9 }));
    harness.clients[0].deliver(createStreamEvent({ event: 'reset', data: '{"reason":"recreated"}' }));
    await waitFor(() => frames.length === 2);
    expect(frames.map((f) => f.binary)).toEqual([false, false]);
    expect(frames.map((f) => JSON.parse(f.text))).toEqual([
      { id: '9', event: 'message', data: { a: 1 } },
      { event: 'reset', data: { reason: 'recreated' } },
    ]);
    expect(harness.counters.snapshot()).toMatchObject({ openStreams: 1, eventsSent: 2 });
    ws.close();
    await waitFor(() => harness.counters.snapshot().openStreams === 0);
  });

  it('writes a burst of events to a client socket in a few writes, not one per event, and in order', async () => {
    const harness = await startWsServer();
    const ws = new WebSocket(harness.url);
    const ids: number[] = [];
    ws.on('message', (data) => ids.push(Number((JSON.parse(String(data)) as { id: string }).id)));
    await waitFor(() => harness.clients.length === 1);
    // Count the server socket's own writes: each _write or _writev is one trip to the kernel.
    const [served] = harness.server.clients;
    const socket = (served as unknown as { _socket: Record<'_write' | '_writev', (...args: unknown[]) => unknown> })
      ._socket;
    let writes = 0;
    for (const method of ['_write', '_writev'] as const) {
      const original = socket[method].bind(socket);
      socket[method] = (...args: unknown[]) => {
        writes++;
        return original(...args);
      };
    }
    const burst = 200;
    for (let seq = 1; seq <= burst; seq++)
      harness.clients[0].deliver(createStreamEvent({ event: 'message', data: '{"n":1}', seq }));
    await waitFor(() => ids.length === burst);
    expect(ids).toEqual(Array.from({ length: burst }, (_, i) => i + 1));
    expect(writes).toBeLessThanOrEqual(2);
    ws.close();
  });

  it('pings on every heartbeat', async () => {
    const harness = await startWsServer({ heartbeatMs: 30 });
    const ws = new WebSocket(harness.url);
    let pings = 0;
    ws.on('ping', () => pings++);
    await waitFor(() => pings >= 2);
    ws.close();
  });

  it('gives a client that stops reading a gap event, and the rest in order', async () => {
    const harness = await startWsServer({ limits: { maxEvents: 1000, maxBytes: 256 * 1024, overflow: 'gap' } });
    const ws = new WebSocket(harness.url);
    const frames: { id?: string; event: string; data: unknown }[] = [];
    ws.on('message', (data) => frames.push(JSON.parse(String(data)) as (typeof frames)[number]));
    // The client's socket exists once it has read the upgrade's answer, which on a loaded machine came after the
    // server counted the connection.
    await once(ws, 'open');
    await waitFor(() => harness.clients.length === 1);
    // Stop reading the socket: the server's buffers fill.
    const socket = (ws as unknown as { _socket: { pause(): void; resume(): void } })._socket;
    socket.pause();
    const chunk = JSON.stringify('x'.repeat(64 * 1024));
    const total = 400;
    for (let seq = 1; seq <= total; seq++)
      harness.clients[0].deliver(createStreamEvent({ event: 'message', data: chunk, seq }));
    harness.clients[0].deliver(createStreamEvent({ event: 'message', data: '"last"', seq: total + 1 }));
    socket.resume();
    await waitFor(() => frames.some((f) => f.data === 'last'), 60_000);
    const gaps = frames.filter((f) => f.event === 'gap');
    const ids = frames.filter((f) => f.id !== undefined).map((f) => Number(f.id));
    expect(gaps).toHaveLength(1);
    const { missed } = gaps[0].data as { missed: number };
    expect(missed).toBeGreaterThan(0);
    expect(ids.length + missed).toBe(total + 1);
    expect(ids).toEqual([...ids].sort((a, b) => a - b));
    ws.close();
  });

  it('cuts a client that stops reading under the close policy', async () => {
    const harness = await startWsServer({ limits: { maxEvents: 5, maxBytes: 1024 * 1024, overflow: 'close' } });
    const ws = new WebSocket(harness.url);
    await once(ws, 'open');
    await waitFor(() => harness.clients.length === 1);
    (ws as unknown as { _socket: { pause(): void } })._socket.pause();
    const chunk = JSON.stringify('x'.repeat(64 * 1024));
    for (let seq = 1; seq <= 400 && harness.counters.snapshot().cuts === 0; seq++) {
      harness.clients[0].deliver(createStreamEvent({ event: 'message', data: chunk, seq }));
    }
    await waitFor(() => harness.counters.snapshot().openStreams === 0);
    expect(harness.counters.snapshot().cuts).toBe(1);
  });
});
