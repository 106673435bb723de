import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { connect } from 'node:net';
import { recordHostileCounts } from '@restbus/infra/testing';
import { shopConfig, type Files } from './sample-project';
import { useMockProgram } from './start-mock-program';

/** What the server wrote back (latin1), and how the exchange ended. */
interface Exchange {
  text: string;
  ended: 'closed' | 'open' | 'answered';
}

/** Whether `text` holds a whole answer framed by its Content-Length (one left open after it is whole). */
function isWhole(text: string): boolean {
  const end = text.indexOf('\r\n\r\n');
  const length = end < 0 ? undefined : /\r\ncontent-length: *(\d+)/i.exec(text.slice(0, end))?.[1];
  return length !== undefined && text.length - end - 4 >= Number(length);
}

/**
 * Sends raw bytes and reads what comes back until the server closes or `waitMs` passes (kept-alive connections stay
 * open: their answer is there by then). With `reset` the client resets the connection right after writing.
 */
function exchange(
  port: number,
  request: string,
  options: { reset?: boolean; waitMs?: number } = {},
): Promise<Exchange> {
  return new Promise((done) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const timer = setTimeout(() => {
      socket.destroy();
      done({ text, ended: 'open' });
    }, options.waitMs ?? 1500);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      // A keep-alive answer is done when its body is: waiting for the server to close it only waited out the timer.
      if (!isWhole(text)) return;
      clearTimeout(timer);
      socket.destroy();
      done({ text, ended: 'answered' });
    });
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      done({ text, ended: 'closed' });
    });
    socket.write(request, 'latin1');
    if (options.reset) setImmediate(() => socket.resetAndDestroy());
  });
}

const statusOf = (text: string): number => Number(/^HTTP\/1\.1 (\d{3})/.exec(text)?.[1] ?? 0);
const bodyOf = (text: string): string => text.slice(text.indexOf('\r\n\r\n') + 4);

const project = (remotePort: number): Files => ({
  'server/config.yml': `environments:
  default:
    restapiRoot: ..
    remoteServices:
      - { uri: /remote, host: 127.0.0.1, port: ${remotePort}, active: true }
`,
  'config.yml': shopConfig(['/alive']),
  'services/alive/service.yml': `name: Alive
description: Alive
style: OPERATION
uriTemplate: /alive
methods:
  GET:
    summary: Alive
    responses:
      - { name: OK, statusCode: 200, reason: fine, mockBody: alive.json }
`,
  'services/alive/alive.json': '{"alive":true}\n',
});

const WS =
  'Connection: Upgrade\r\nUpgrade: websocket\r\nSec-WebSocket-Version: 13\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n';

interface Case {
  name: string;
  request: string;
  reset?: boolean;
  /** What a right answer looks like; undefined for a reset (nothing to read). */
  expect?: { status: number; body: RegExp };
}

const CASES: Case[] = [
  {
    name: 'a WebSocket upgrade of a mocked route is answered as the GET it also is',
    request: `GET /rest/alive HTTP/1.1\r\nHost: x\r\n${WS}\r\n`,
    expect: { status: 200, body: /"alive":true/ },
  },
  {
    name: 'a WebSocket upgrade followed by frame bytes',
    request: `GET /rest/alive HTTP/1.1\r\nHost: x\r\n${WS}\r\n\x81\x85\x00\x01\x02\x03garbage\r\n\r\n`,
    expect: { status: 200, body: /"alive":true/ },
  },
  {
    name: 'a WebSocket upgrade of a path nothing serves',
    request: `GET /nothing HTTP/1.1\r\nHost: x\r\n${WS}\r\n`,
    expect: { status: 404, body: /"code":"NOT_FOUND"/ },
  },
  {
    name: 'an h2c upgrade',
    request:
      'GET /rest/alive HTTP/1.1\r\nHost: x\r\nConnection: Upgrade, HTTP2-Settings\r\nUpgrade: h2c\r\nHTTP2-Settings: AAMAAABkAAQAAP__\r\n\r\n',
    expect: { status: 200, body: /"alive":true/ },
  },
  {
    name: 'an Upgrade header of control and non-UTF-8 bytes',
    request: 'GET /rest/alive HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade: \x01\x02\xff\xfe\r\n\r\n',
    expect: { status: 400, body: /"code":"BAD_REQUEST"/ },
  },
  {
    name: 'an empty Upgrade header',
    request: 'GET /rest/alive HTTP/1.1\r\nHost: x\r\nConnection: Upgrade\r\nUpgrade:\r\n\r\n',
    expect: { status: 200, body: /"alive":true/ },
  },
  {
    name: 'an upgrade of a POST with a body',
    request: `POST /rest/alive HTTP/1.1\r\nHost: x\r\n${WS}Content-Length: 5\r\n\r\nhello`,
    expect: { status: 405, body: /"code":"METHOD_NOT_ALLOWED"/ },
  },
  {
    name: 'a WebSocket upgrade reset at once',
    request: `GET /rest/alive HTTP/1.1\r\nHost: x\r\n${WS}\r\n`,
    reset: true,
  },
  {
    name: 'a CONNECT',
    request: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    expect: { status: 405, body: /"code":"METHOD_NOT_ALLOWED"/ },
  },
  {
    name: 'a CONNECT followed by TLS bytes',
    request: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n\x16\x03\x01\x00\xffgarbage',
    expect: { status: 405, body: /"code":"METHOD_NOT_ALLOWED"/ },
  },
  {
    name: 'a CONNECT reset at once',
    request: 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n',
    reset: true,
  },
  {
    name: 'a WebSocket upgrade of a proxied route, whose remote would switch protocols',
    request: `GET /rest/remote/socket HTTP/1.1\r\nHost: x\r\n${WS}\r\n`,
    expect: { status: 200, body: /^remote answered plainly$/ },
  },
  {
    name: 'a proxied WebSocket upgrade reset at once',
    request: `GET /rest/remote/socket HTTP/1.1\r\nHost: x\r\n${WS}\r\n`,
    reset: true,
  },
];

describe('restbus-mock and upgrade requests, over raw sockets', () => {
  const { serve } = useMockProgram();
  let remote: Server;

  beforeAll(async () => {
    // A remote that switches to WebSocket when asked: the 101 would reach no one through the mock server's proxy.
    remote = createServer((_req, res) => res.end('remote answered plainly'));
    remote.on('upgrade', (_req, socket) => {
      socket.on('error', () => undefined);
      socket.end('HTTP/1.1 101 Switching Protocols\r\nConnection: Upgrade\r\nUpgrade: websocket\r\n\r\n');
    });
    await new Promise<void>((resolve) => remote.listen(0, '127.0.0.1', resolve));
  });

  afterAll(async () => {
    remote.closeAllConnections();
    await new Promise((resolve) => remote.close(resolve));
  });

  it('answers each with a JSON error or its route, never hangs on one, and serves on', async () => {
    const api = await serve(project((remote.address() as AddressInfo).port), '--log-format', 'json');
    const port = Number(new URL(api).port);
    const wrong: string[] = [];
    for (const { name, request, reset, expect: wanted } of CASES) {
      const answer = await exchange(port, request, { reset });
      if (!wanted) continue;
      const status = statusOf(answer.text);
      const body = bodyOf(answer.text);
      if (status !== wanted.status || !wanted.body.test(body) || /\n\s+at |node:internal/.test(answer.text)) {
        wrong.push(`${name}: ${JSON.stringify(answer.text.slice(0, 300))} (${answer.ended})`);
      }
    }
    recordHostileCounts('mock-server upgrades and CONNECT', {
      tried: { requests: CASES.length },
      found: { wrongAnswers: wrong.length },
    });
    expect(wrong).toEqual([]);
    const after = await fetch(`${api}/alive`);
    expect(after.status).toBe(200);
    expect(await after.json()).toEqual({ alive: true });
  });
});
