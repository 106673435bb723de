import { spawn, type ChildProcess } from 'node:child_process';
import { once } from 'node:events';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { connect as connectTcp, type Socket } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { connect, type NatsConnection } from 'nats';
import { io as ioClient, type Socket as ClientSocket } from 'socket.io-client';
import { WebSocket } from 'ws';
import { recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { createHostileFrames, encodeFrame, PING_FLOOD, type HostileFrame } from '../bench/hostile/hostile-frames';
import { findCloseCode, readServerFrames } from '../bench/hostile/read-server-frames';
import { closeOf } from '../bench/hostile/send-hostile-frame';
import { GATEWAY_MAIN } from './run-gateway';

/** The gateway's limits here: streams take 4 KiB frames (WS_MAX_PAYLOAD), socket.io the body limit. */
const MAX_PAYLOAD = 4096;
const FRAMES = createHostileFrames({ maxPayload: MAX_PAYLOAD });
const STREAM = { description: 'events', content: { 'text/event-stream': { itemSchema: { type: 'object' } } } };
const API = {
  openapi: '3.0.3',
  info: { title: 'hostile sockets', version: '1', description: 'one stream, one plain operation' },
  paths: {
    '/feed': {
      get: {
        operationId: 'feed',
        description: 'the feed',
        'x-restbus-stream': { subject: 'feed.events' },
        responses: { '200': STREAM },
      },
    },
    '/plain': {
      get: {
        operationId: 'plain',
        description: 'no stream',
        responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
      },
    },
  },
};
const HANDSHAKE_KEY = 'dGhlIHNhbXBsZSBub25jZQ==';
const upgradeRequest = (path: string, extra = ''): string =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  `Sec-WebSocket-Key: ${HANDSHAKE_KEY}\r\nSec-WebSocket-Version: 13\r\n${extra}\r\n`;

let dir: string;
let nats: TestNatsServer;
let service: NatsConnection;
let child: ChildProcess;
let output = '';
let port: number;
const tried: Record<string, number> = {
  streamFrames: 0,
  socketIoFrames: 0,
  sseFrames: 0,
  pingFloods: 0,
  httpRequests: 0,
};
let crashes = 0;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-hostile-sockets-'));
  await writeFile(join(dir, 'api.json'), JSON.stringify(API));
  nats = await startNatsServer();
  service = await connect({ servers: nats.url });
  service.subscribe('easer.>', { callback: (_err, msg) => msg.respond('{"status":200,"body":{"ok":true}}') });
  await service.flush();
  // One gateway for every case: event streams (-u), socket.io (-w) with the same 4 KiB limit on what a client sends.
  const args = [GATEWAY_MAIN, '-r', join(dir, 'api.json'), '-n', nats.url, '-p', '0', '--log-format', 'json'];
  args.push('-u', '-w', '-i', 'news', '-o', 'up', '--bodyLimit', String(MAX_PAYLOAD));
  child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  child.stderr!.on('data', (chunk: Buffer) => (output += String(chunk)));
  port = await new Promise<number>((done, fail) => {
    createInterface({ input: child.stdout! }).on('line', (line) => {
      output += `${line}\n`;
      if (line.includes('"gateway listening"')) done(Number((JSON.parse(line) as { port: number }).port));
    });
    child.once('exit', () => fail(new Error(`the gateway stopped before it listened:\n${output}`)));
  });
  for (let tries = 0; ; tries++) {
    const ready = (await (await fetch(`http://127.0.0.1:${port}/-/ready`)).json()) as { nats?: string };
    if (ready.nats === 'connected') break;
    if (tries === 600) throw new Error('the gateway did not connect to NATS within 30 s');
    await new Promise((done) => setTimeout(done, 50));
  }
});
afterAll(async () => {
  if (child && child.exitCode === null) {
    const exited = once(child, 'exit');
    child.kill('SIGTERM');
    await exited;
  }
  await service?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** Throws, with the gateway's last words, unless the process is alive and answers an ordinary call. */
async function expectServing(what: string): Promise<void> {
  const res =
    child.exitCode === null ? await fetch(`http://127.0.0.1:${port}/plain`).catch(() => undefined) : undefined;
  if (res?.status === 200) return;
  crashes++;
  throw new Error(`the gateway no longer serves after ${what}:\n${output.slice(-3000)}`);
}

interface RawConnection {
  socket: Socket;
  /** Everything the server sent after the HTTP head. */
  received(): Buffer;
  head: string;
  closed: Promise<void>;
}

/** A TCP connection that sent `request` and got the head of the answer. */
async function openRaw(request: string): Promise<RawConnection> {
  const socket = connectTcp(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = closeOf(socket);
  let data = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (data = Buffer.concat([data, chunk])));
  socket.write(request);
  for (let waited = 0; data.indexOf('\r\n\r\n') < 0; waited += 5) {
    if (waited > 5000 || socket.destroyed) throw new Error(`no answer to ${JSON.stringify(request.slice(0, 60))}`);
    await new Promise((done) => setTimeout(done, 5));
  }
  const split = data.indexOf('\r\n\r\n') + 4;
  const head = data.subarray(0, split).toString('latin1');
  return { socket, head, closed, received: () => data.subarray(split) };
}

const within = (promise: Promise<void>, ms: number): Promise<boolean> =>
  Promise.race([promise.then(() => true), new Promise<boolean>((done) => setTimeout(() => done(false), ms))]);

/**
 * Sends a hostile case on an open WebSocket and says how it ended: the server's close code, and whether it closed
 * the connection. A benign case is followed by a clean close, which the server echoes and ends with.
 */
async function sendCase(connection: RawConnection, frame: HostileFrame): Promise<{ code?: number; closed: boolean }> {
  connection.socket.write(frame.bytes);
  if (frame.endAfter) connection.socket.end();
  else if (frame.expectedClose === undefined) connection.socket.write(encodeFrame({ opcode: 0x8 }));
  const closed = await within(connection.closed, 5000);
  connection.socket.destroy();
  return { code: findCloseCode(connection.received()), closed };
}

describe('hostile sockets against one restbus-gateway -u -w', () => {
  let bystander: WebSocket;
  let bystanderIo: ClientSocket;
  let bystanderClosed = 0;

  beforeAll(async () => {
    // Clients that behave, connected through every case: none of them may be disconnected.
    bystander = new WebSocket(`ws://127.0.0.1:${port}/feed`);
    bystander.on('close', () => bystanderClosed++);
    await once(bystander, 'open');
    bystanderIo = ioClient(`http://127.0.0.1:${port}`, { transports: ['websocket'], reconnection: false });
    bystanderIo.on('disconnect', () => bystanderClosed++);
    await new Promise<void>((done) => bystanderIo.once('connect', () => done()));
  });
  afterAll(() => {
    recordHostileCounts('gateway sockets', {
      tried: { frames: tried.streamFrames + tried.socketIoFrames + tried.sseFrames, ...tried },
      found: { crashes, disconnectsOfOthers: bystanderClosed },
    });
    bystander?.terminate();
    bystanderIo?.close();
  });

  it('a 14-byte frame claiming 2^63-1 bytes closes only its stream WebSocket, with 1009, and the gateway serves on', async () => {
    const fourteen = encodeFrame({ opcode: 0x2, claimedLength: 2n ** 63n - 1n });
    expect(fourteen.length).toBe(14);
    const connection = await openRaw(upgradeRequest('/feed'));
    expect(connection.head).toMatch(/^HTTP\/1\.1 101 /);
    expect(await sendCase(connection, { kind: '14 bytes', bytes: fourteen, expectedClose: 1009 })).toEqual({
      code: 1009,
      closed: true,
    });
    await expectServing('14 bytes');
    const metrics = await (await fetch(`http://127.0.0.1:${port}/-/metrics`)).text();
    expect(metrics).toMatch(/restbus_gateway_stream_protocol_errors_total\{kind="too_big"\} [1-9]/);
  });

  it('closes a stream WebSocket with the code each hostile frame calls for, and serves on after every one', async () => {
    const wrong: string[] = [];
    for (const frame of FRAMES) {
      const connection = await openRaw(upgradeRequest('/feed'));
      if (!connection.head.startsWith('HTTP/1.1 101 ')) throw new Error(`no stream for ${frame.kind}`);
      const ended = await sendCase(connection, frame);
      tried.streamFrames++;
      if (!ended.closed) wrong.push(`${frame.kind}: the connection stayed open`);
      if (frame.expectedClose !== undefined && ended.code !== frame.expectedClose)
        wrong.push(`${frame.kind}: closed with ${ended.code}, not ${frame.expectedClose}`);
      await expectServing(frame.kind);
    }
    expect(wrong).toEqual([]);
    const metrics = await (await fetch(`http://127.0.0.1:${port}/-/metrics`)).text();
    for (const kind of ['protocol', 'invalid_utf8', 'too_many_parts', 'too_big'])
      expect(metrics).toMatch(new RegExp(`restbus_gateway_stream_protocol_errors_total\\{kind="${kind}"\\} [1-9]`));
  });

  it('closes a socket.io WebSocket on each hostile frame (with its code where there is one), and serves on', async () => {
    const wrong: string[] = [];
    for (const frame of FRAMES) {
      const connection = await openRaw(upgradeRequest('/socket.io/?EIO=4&transport=websocket'));
      if (!connection.head.startsWith('HTTP/1.1 101 ')) throw new Error(`no socket.io for ${frame.kind}`);
      const ended = await sendCase(connection, frame);
      tried.socketIoFrames++;
      if (!ended.closed) wrong.push(`${frame.kind}: the connection stayed open`);
      // A benign frame is no engine.io packet: engine.io closes in its own way, which is fine.
      if (frame.expectedClose !== undefined && ended.code !== frame.expectedClose)
        wrong.push(`${frame.kind}: closed with ${ended.code}, not ${frame.expectedClose}`);
      await expectServing(`socket.io: ${frame.kind}`);
    }
    expect(wrong).toEqual([]);
  });

  it.each([
    ['a stream WebSocket', '/feed'],
    ['a socket.io WebSocket', '/socket.io/?EIO=4&transport=websocket'],
  ])('cuts %s whose client sends 2,000 pings in a burst, well before it has answered them all', async (_name, path) => {
    const connection = await openRaw(upgradeRequest(path));
    connection.socket.write(PING_FLOOD);
    tried.pingFloods++;
    expect(await within(connection.closed, 5000)).toBe(true);
    const pongs = readServerFrames(connection.received()).filter(({ opcode }) => opcode === 0xa).length;
    expect(pongs).toBeLessThan(2000);
    await expectServing(`a ping flood on ${path}`);
  });

  it('closes an SSE stream on whatever bytes follow its request, and serves on', async () => {
    const unclosed: string[] = [];
    for (const frame of FRAMES) {
      const connection = await openRaw('GET /feed HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n');
      if (!connection.head.startsWith('HTTP/1.1 200 ')) throw new Error(`no SSE stream for ${frame.kind}`);
      connection.socket.write(frame.bytes);
      if (frame.endAfter) connection.socket.end();
      tried.sseFrames++;
      if (!(await within(connection.closed, 5000))) unclosed.push(frame.kind);
      connection.socket.destroy();
      await expectServing(`SSE: ${frame.kind}`);
    }
    expect(unclosed).toEqual([]);
  });

  const HTTP_CASES: [string, string, RegExp][] = [
    ['a WebSocket upgrade of a path with no stream', upgradeRequest('/plain'), /^HTTP\/1\.1 400 /],
    ['a WebSocket upgrade of no path', upgradeRequest('/nothing'), /^HTTP\/1\.1 404 /],
    ['a WebSocket upgrade of a reserved path', upgradeRequest('/-/metrics'), /^HTTP\/1\.1 404 /],
    ['a WebSocket upgrade of a malformed path', upgradeRequest('/%E0%A4%A'), /^HTTP\/1\.1 4\d\d /],
    [
      'an h2c upgrade of the stream',
      'GET /feed HTTP/1.1\r\nHost: x\r\nUpgrade: h2c\r\nConnection: Upgrade\r\n\r\n',
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a stream upgrade with no key',
      'GET /feed HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\nSec-WebSocket-Version: 13\r\n\r\n',
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a stream upgrade of version 99',
      upgradeRequest('/feed').replace('Version: 13', 'Version: 99'),
      /^HTTP\/1\.1 400 [^]*sec-websocket-version: 13, 8/i,
    ],
    [
      'a stream upgrade with a garbled protocol list',
      upgradeRequest('/feed', 'Sec-WebSocket-Protocol: a,,b c\r\n'),
      /^HTTP\/1\.1 400 /,
    ],
    [
      'a POST upgrade of the stream, with a body',
      upgradeRequest('/feed').replace('GET', 'POST').replace('Host: x', 'Host: x\r\nContent-Length: 5') + 'hello',
      /^HTTP\/1\.1 4\d\d /,
    ],
    [
      'a socket.io upgrade of a transport it does not know',
      upgradeRequest('/socket.io/?EIO=4&transport=pigeon'),
      /^HTTP\/1\.1 400 /,
    ],
    ['a CONNECT', 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n', /^HTTP\/1\.1 405 /],
    [
      'an upgrade header with a control character',
      'GET /feed HTTP/1.1\r\nHost: x\r\nUpgrade: web\x01socket\r\nConnection: Upgrade\r\n\r\n',
      /^HTTP\/1\.1 400 /,
    ],
  ];

  it.each(HTTP_CASES)('answers %s with an HTTP error and closes the socket', async (_name, request, answer) => {
    const connection = await openRaw(request);
    tried.httpRequests++;
    expect(connection.head).toMatch(answer);
    // The gateway's own refusals are its JSON error; engine.io's (under /socket.io/) are engine.io's.
    if (!request.includes('/socket.io/')) expect(connection.head).toMatch(/content-type: application\/json/i);
    expect(await within(connection.closed, 5000)).toBe(true);
    await expectServing(request);
  });

  /** Clients that send `requests` and reset the connection at once, on the next tick or on the first answer. */
  async function leaveEarly(requests: readonly string[]): Promise<void> {
    for (const request of requests) {
      for (const leave of ['at once', 'next tick', 'on the answer'] as const) {
        const socket = connectTcp(port, '127.0.0.1');
        socket.on('error', () => undefined);
        const closed = closeOf(socket);
        await once(socket, 'connect');
        socket.write(request);
        if (leave === 'at once') socket.resetAndDestroy();
        else if (leave === 'next tick') setImmediate(() => socket.resetAndDestroy());
        else socket.once('data', () => socket.resetAndDestroy());
        await closed;
        tried.httpRequests++;
      }
    }
    // The last resets reach the gateway after their clients are gone: an ordinary call comes after them.
    await new Promise((done) => setTimeout(done, 100));
  }

  it('serves on after clients that leave an upgrade or a refused request early, and holds no stream for them', async () => {
    await leaveEarly([
      ...HTTP_CASES.map(([, request]) => request),
      upgradeRequest('/feed'),
      upgradeRequest('/socket.io/?EIO=4&transport=websocket'),
    ]);
    await expectServing('clients that left');
    // The bystander's stream only.
    let open = -1;
    for (let tries = 0; tries < 100 && open !== 1; tries++) {
      const metrics = await (await fetch(`http://127.0.0.1:${port}/-/metrics`)).text();
      open = Number(/^restbus_gateway_streams_open (\d+)$/m.exec(metrics)?.[1]);
      if (open !== 1) await new Promise((done) => setTimeout(done, 20));
    }
    expect(open).toBe(1);
  });

  it('serves on after clients that leave an SSE stream early, and no other client is disconnected', async () => {
    await leaveEarly(['GET /feed HTTP/1.1\r\nHost: x\r\nAccept: text/event-stream\r\n\r\n']);
    await expectServing('SSE clients that left');
    expect(bystanderClosed).toBe(0);
  });
});
