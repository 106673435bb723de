import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, type NatsConnection, type Subscription } from 'nats';
import { io as ioClient, type Socket as ClientSocket } from 'socket.io-client';
import WebSocket from 'ws';
import { startNatsServer, waitFor as waitForCheck, type TestNatsServer } from '@restbus/infra/testing';

// The program as users run it; jest's global setup builds it.
const MAIN = resolve(__dirname, '../../dist/main.js');
const API = resolve(__dirname, '../../../person-service/person-api.yml');

interface Running {
  url: string;
  child: ChildProcess;
  lines: Array<Record<string, unknown>>;
  /** Resolves with the exit code once the gateway has exited. */
  exited: Promise<number | null>;
}

let nats: TestNatsServer;
let bus: NatsConnection;

/** `restbus-gateway -r person-api.yml -n <nats> <extra>` on port 0, once it listens (and, with -w, has subscribed). */
async function startGateway(extra: string[]): Promise<Running> {
  const args = [MAIN, '-r', API, '-n', nats.url, '-p', '0', '--log-format', 'json', ...extra];
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  const exited = new Promise<number | null>((done) => child.once('exit', done));
  const lines: Array<Record<string, unknown>> = [];
  const websocket = extra.includes('-w');
  let port: number | undefined;
  const started = new Promise<number>((done, fail) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      const entry = JSON.parse(line) as Record<string, unknown>;
      lines.push(entry);
      if (entry.msg === 'gateway listening') port = Number(entry.port);
      if (port !== undefined && (!websocket || entry.msg === 'inbound subjects subscribed')) done(port);
    });
    void exited.then(() => fail(new Error('the gateway stopped before it was ready')));
  });
  return { url: `http://127.0.0.1:${await started}`, child, lines, exited };
}

async function stop(running: Running | undefined): Promise<void> {
  if (!running || running.child.exitCode !== null) return;
  running.child.kill('SIGTERM');
  await running.exited;
}

/** A socket.io 4.8 client on the WebSocket transport, connected. */
async function connectClient(running: Running): Promise<ClientSocket> {
  const client = ioClient(running.url, { transports: ['websocket'], reconnection: false, forceNew: true });
  await new Promise<void>((done, fail) => {
    client.once('connect', done);
    client.once('connect_error', fail);
  });
  return client;
}

/** The first `count` deliveries of `event` to `client`, each as the list of its arguments. */
function nextEvents(client: ClientSocket, event: string, count = 1): Promise<unknown[][]> {
  return new Promise((done) => {
    const seen: unknown[][] = [];
    const listener = (...args: unknown[]): void => {
      seen.push(args);
      if (seen.length === count) {
        client.off(event, listener);
        done(seen);
      }
    };
    client.on(event, listener);
  });
}

/** The payloads that reach `subject` on NATS, as text. */
function collect(subject: string): { texts: string[]; subscription: Subscription } {
  const texts: string[] = [];
  const subscription = bus.subscribe(subject, {
    callback: (_err, msg) => texts.push(Buffer.from(msg.data).toString('utf8')),
  });
  return { texts, subscription };
}

/**
 * Resolves once `condition` holds. The deadline is a timer (no clock is read), ten times what the wait takes on a
 * quiet machine or more: the tests assert what happens, not how fast (issue 45).
 */
const waitFor = (what: string, condition: () => boolean | Promise<boolean>): Promise<void> =>
  waitForCheck(condition, { what, timeoutMs: 50_000 });

async function metric(running: Running, name: string): Promise<number> {
  const text = await (await fetch(`${running.url}/-/metrics`)).text();
  const line = text.split('\n').find((l) => l.startsWith(`${name} `) || l.startsWith(`${name}{`));
  return line ? Number(line.split(' ').at(-1)) : 0;
}

beforeAll(async () => {
  if (!existsSync(MAIN)) throw new Error(`${MAIN} is missing: run npm run build before these tests`);
  nats = await startNatsServer();
  bus = await connect({ servers: nats.url });
});
afterAll(async () => {
  await bus?.close();
  await nats?.dispose();
});

describe("restbus-gateway -w (easer's WebSocket gateway), without -u", () => {
  let gateway: Running | undefined;
  const clients: ClientSocket[] = [];
  const client = async (): Promise<ClientSocket> => {
    const connected = await connectClient(gateway!);
    clients.push(connected);
    return connected;
  };
  beforeAll(async () => {
    gateway = await startGateway([
      '-w',
      '-i',
      'IN, sensors.>,LOOP',
      '-o',
      'OUT,LOOP , BIN',
      '--bodyLimit',
      '65536',
      '--wsBufferLimit',
      String(1024 * 1024),
    ]);
  });
  afterEach(() => {
    for (const connected of clients.splice(0)) connected.close();
  });
  afterAll(() => stop(gateway));

  it('sends a NATS message to every client as the event named by the subject, one string byte-identical to the payload', async () => {
    const [first, second] = [await client(), await client()];
    const text = '{"name":"Zoë","city":"Győr","mood":"😀","bom":"\uFEFF","note":"text..."}';
    const received = Promise.all([nextEvents(first, 'IN'), nextEvents(second, 'IN')]);
    bus.publish('IN', Buffer.from(text));
    const [[atFirst], [atSecond]] = await received;
    expect(atFirst).toEqual([text]);
    expect(atSecond).toEqual([text]);
    expect(Buffer.from(atFirst[0] as string)).toEqual(Buffer.from(text));
  });

  it('sends a message on a wildcard subject as the wildcard event, with the concrete subject as a second argument', async () => {
    const listener = await client();
    const received = nextEvents(listener, 'sensors.>', 2);
    bus.publish('sensors.kitchen.temperature', Buffer.from('21.5'));
    bus.publish('sensors.hall', Buffer.from(''));
    expect(await received).toEqual([
      ['21.5', 'sensors.kitchen.temperature'],
      ['', 'sensors.hall'],
    ]);
  });

  it('publishes an event named by an outbound subject and acknowledges it with true', async () => {
    const out = collect('OUT');
    await bus.flush();
    const producer = await client();
    expect(await producer.emitWithAck('OUT', 'plain text ✓')).toBe(true);
    expect(await producer.emitWithAck('OUT', { note: 'text...', number: 42, floatValue: 42.24 })).toBe(true);
    expect(await producer.emitWithAck('OUT', [1, 'two'])).toBe(true);
    await waitFor('three messages on OUT', () => out.texts.length === 3);
    out.subscription.unsubscribe();
    // An object goes out as its JSON text, where easer published "[object Object]".
    expect(out.texts).toEqual(['plain text ✓', '{"note":"text...","number":42,"floatValue":42.24}', '[1,"two"]']);
  });

  it('publishes a binary payload as its bytes', async () => {
    const bytes: Buffer[] = [];
    const subscription = bus.subscribe('BIN', { callback: (_err, msg) => bytes.push(Buffer.from(msg.data)) });
    await bus.flush();
    const producer = await client();
    const sent = Buffer.from([0, 255, 0xc3, 0x28, 10]);
    expect(await producer.emitWithAck('BIN', sent)).toBe(true);
    await waitFor('the binary message', () => bytes.length === 1);
    subscription.unsubscribe();
    expect(bytes[0]).toEqual(sent);
  });

  it('neither publishes nor acknowledges an event outside the outbound list, and logs its name once', async () => {
    const elsewhere = collect('NOT.LISTED');
    await bus.flush();
    const producer = await client();
    const before = await metric(gateway!, 'restbus_gateway_websocket_refused_events_total');
    await expect(producer.timeout(300).emitWithAck('NOT.LISTED', 'x')).rejects.toThrow(/timed out/);
    await expect(producer.timeout(300).emitWithAck('NOT.LISTED', 'y')).rejects.toThrow(/timed out/);
    // An inbound subject is not an outbound one.
    await expect(producer.timeout(300).emitWithAck('IN', 'z')).rejects.toThrow(/timed out/);
    await bus.flush();
    elsewhere.subscription.unsubscribe();
    expect(elsewhere.texts).toEqual([]);
    expect(await metric(gateway!, 'restbus_gateway_websocket_refused_events_total')).toBe(before + 3);
    const logged = gateway!.lines.filter((line) => line.event === 'NOT.LISTED');
    expect(logged).toHaveLength(1);
    expect(logged[0]).toMatchObject({ level: 40, msg: expect.stringContaining('no -o (--outbound) subject') });
  });

  it('logs at most 100 distinct refused event names, then one line saying it stops, and counts them all', async () => {
    const producer = await client();
    const before = await metric(gateway!, 'restbus_gateway_websocket_refused_events_total');
    for (let i = 0; i < 150; i++) producer.emit(`flood.${i}`, 'x');
    await waitFor('150 refusals counted', async () => {
      return (await metric(gateway!, 'restbus_gateway_websocket_refused_events_total')) === before + 150;
    });
    await new Promise((done) => setTimeout(done, 100));
    const named = gateway!.lines.filter((line) => String(line.event).startsWith('flood.'));
    // NOT.LISTED and IN, from the test before, took two of the 100.
    expect(named).toHaveLength(98);
    expect(gateway!.lines.filter((line) => String(line.msg).includes('no longer logging'))).toHaveLength(1);
  });

  it('sends a message back to the client through NATS when a subject is both outbound and inbound (loopback)', async () => {
    const looper = await client();
    const received = nextEvents(looper, 'LOOP');
    expect(await looper.emitWithAck('LOOP', JSON.stringify({ note: 'text...', number: 42 }))).toBe(true);
    expect(await received).toEqual([['{"note":"text...","number":42}']]);
  });

  it("relays a wsgw producer's messages to a wsgw consumer, shaped as wsgw's own commands use socket.io-client", async () => {
    // wsgw consumer: connect with the defaults (polling, then the upgrade) and listen to the topic.
    const consumer = ioClient(gateway!.url);
    clients.push(consumer);
    const consumed: unknown[] = [];
    consumer.on('LOOP', (data: unknown) => consumed.push(data));
    await new Promise((done) => consumer.once('connect', () => done(undefined)));
    // wsgw producer: connect, emit each message as text (JSON for an object) with a confirmation callback, close.
    const producer = ioClient(gateway!.url);
    const messages = [{ id: 1, note: 'first' }, 'second, as text', { id: 3, nested: { ok: true } }];
    const confirmations: unknown[] = [];
    for (const message of messages) {
      const strToEmit = typeof message === 'string' ? message : JSON.stringify(message);
      await new Promise((done) =>
        producer.emit('LOOP', strToEmit, (confirmation: unknown) => done(confirmations.push(confirmation))),
      );
    }
    producer.close();
    await waitFor('three messages at the consumer', () => consumed.length === 3);
    expect(confirmations).toEqual([true, true, true]);
    expect(consumed).toEqual(['{"id":1,"note":"first"}', 'second, as text', '{"id":3,"nested":{"ok":true}}']);
  });

  it('closes the connection of a client that sends more than the body limit, and publishes nothing of it', async () => {
    const out = collect('OUT');
    await bus.flush();
    const producer = await client();
    const disconnected = new Promise((done) => producer.once('disconnect', done));
    producer.emit('OUT', 'x'.repeat(100 * 1024));
    expect(await disconnected).toBe('transport close');
    await bus.flush();
    out.subscription.unsubscribe();
    expect(out.texts).toEqual([]);
  });

  it('serves the socket.io browser client at /socket.io/socket.io.js, as easer did', async () => {
    const response = await fetch(`${gateway!.url}/socket.io/socket.io.js`);
    expect(response.status).toBe(200);
    expect(await response.text()).toContain('Socket.IO v4');
  });

  it('keeps answering HTTP calls on the same port (501 without -u)', async () => {
    const response = await fetch(`${gateway!.url}/persons/luke`);
    expect(response.status).toBe(501);
  });

  it('disconnects a client that stops reading once more than the buffer limit is queued for it, while others keep receiving', async () => {
    const healthy = await client();
    // A raw socket.io client that joins the namespace, then reads nothing more.
    const stalled = new WebSocket(`${gateway!.url.replace('http', 'ws')}/socket.io/?EIO=4&transport=websocket`);
    await new Promise<void>((done, fail) => {
      stalled.on('message', (data: Buffer) => {
        const text = data.toString();
        if (text.startsWith('0')) stalled.send('40');
        if (text.startsWith('40')) done();
      });
      stalled.once('error', fail);
    });
    stalled.pause();
    const payload = 'p'.repeat(16 * 1024);
    let received = 0;
    healthy.on('IN', () => received++);
    let sent = 0;
    // In batches the healthy client keeps up with, until the stalled one is cut (at most 64 MB in all).
    while ((await metric(gateway!, 'restbus_gateway_websocket_clients_cut_total')) === 0 && sent < 4096) {
      for (let i = 0; i < 128; i++) bus.publish('IN', Buffer.from(payload));
      sent += 128;
      await waitFor(`${sent} messages at the healthy client`, () => received === sent);
    }
    stalled.terminate();
    expect(await metric(gateway!, 'restbus_gateway_websocket_clients_cut_total')).toBe(1);
    expect(received).toBe(sent);
    expect(healthy.connected).toBe(true);
    // The metric counts the cut as it happens; the log line comes over the gateway's stdout, maybe a moment later.
    const findCut = () => gateway!.lines.find((line) => String(line.msg).includes('more was queued for it'));
    await waitFor('the log line of the cut', () => findCut() !== undefined);
    const cut = findCut();
    expect(cut).toMatchObject({ level: 40, limit: 1024 * 1024 });
    expect(Number(cut!.queuedBytes)).toBeGreaterThan(1024 * 1024);
  }, 300_000);

  it('delivers each message once after a reload (SIGHUP): reloading subscribes nothing again', async () => {
    const listener = await client();
    const reloads = gateway!.lines.filter((line) => line.msg === 'API reloaded').length;
    gateway!.child.kill('SIGHUP');
    await waitFor('the reload', () => gateway!.lines.filter((line) => line.msg === 'API reloaded').length > reloads);
    const seen: unknown[] = [];
    listener.on('IN', (text: unknown) => seen.push(text));
    bus.publish('IN', Buffer.from('after the reload'));
    bus.publish('IN', Buffer.from('marker'));
    await waitFor('the marker', () => seen.includes('marker'));
    await new Promise((done) => setTimeout(done, 200));
    expect(seen).toEqual(['after the reload', 'marker']);
  });
});

describe('restbus-gateway -w with -u', () => {
  let gateway: Running | undefined;
  beforeAll(async () => {
    gateway = await startGateway(['-u', '-w', '-i', 'LOOP', '-o', 'LOOP']);
  });
  afterAll(() => stop(gateway));

  it('relays as without -u', async () => {
    const looper = await connectClient(gateway!);
    try {
      const received = nextEvents(looper, 'LOOP');
      expect(await looper.emitWithAck('LOOP', 'with -u')).toBe(true);
      expect(await received).toEqual([['with -u']]);
    } finally {
      looper.close();
    }
  });

  it('disconnects its clients and exits 0 on SIGTERM', async () => {
    const connected = await connectClient(gateway!);
    const disconnected = new Promise((done) => connected.once('disconnect', done));
    gateway!.child.kill('SIGTERM');
    expect(await disconnected).toBe('transport close');
    expect(await gateway!.exited).toBe(0);
  });
});

describe('restbus-gateway -w on a NATS server whose max_payload is smaller than the body limit', () => {
  let small: TestNatsServer | undefined;
  let gateway: Running | undefined;
  beforeAll(async () => {
    small = await startNatsServer({ maxPayload: 4096 });
    gateway = await startGateway(['-w', '-o', 'OUT', '-n', small.url]);
  });
  afterAll(async () => {
    await stop(gateway);
    await small?.dispose();
  });

  it('acknowledges no event NATS refuses, logs that once in a while, and keeps the client', async () => {
    const observer = await connect({ servers: small!.url });
    const texts: string[] = [];
    observer.subscribe('OUT', { callback: (_err, msg) => texts.push(Buffer.from(msg.data).toString()) });
    await observer.flush();
    const producer = await connectClient(gateway!);
    try {
      await expect(producer.timeout(300).emitWithAck('OUT', 'x'.repeat(8192))).rejects.toThrow(/timed out/);
      await expect(producer.timeout(300).emitWithAck('OUT', 'y'.repeat(8192))).rejects.toThrow(/timed out/);
      expect(await producer.emitWithAck('OUT', 'small')).toBe(true);
      await observer.flush();
      await waitFor('the small message', () => texts.length === 1);
      expect(texts).toEqual(['small']);
      const failures = gateway!.lines.filter((line) => String(line.msg).startsWith('cannot publish a socket.io event'));
      expect(failures).toHaveLength(1);
      expect(failures[0]).toMatchObject({ level: 50, subject: 'OUT' });
    } finally {
      producer.close();
      await observer.close();
    }
  });
});

describe('restbus-gateway -i or -o without -w', () => {
  it('starts no WebSocket gateway and says so in a warning', async () => {
    const gateway = await startGateway(['-i', 'IN', '-o', 'OUT']);
    try {
      const warning = gateway.lines.find((line) => String(line.msg).includes('used only with -w'));
      expect(warning).toMatchObject({ level: 40, inbound: ['IN'], outbound: ['OUT'] });
      const response = await fetch(`${gateway.url}/socket.io/?EIO=4&transport=polling`);
      expect(response.status).toBe(404);
    } finally {
      await stop(gateway);
    }
  });
});
