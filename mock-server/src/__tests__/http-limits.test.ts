import { connect } from 'node:net';
import { rm } from 'node:fs/promises';
import type { MockServer } from '../server/start-mock-server';
import { sampleFiles, serveProject, writeProject } from './sample-project';

let project: string;
let server: MockServer;

beforeAll(async () => {
  project = await writeProject(sampleFiles());
  server = await serveProject(project, {
    watch: false,
    bodyLimit: 1000,
    limits: { headersTimeoutMs: 300, requestTimeoutMs: 300, maxConnections: 50 },
  });
});
afterAll(async () => {
  await server.close();
  await rm(project, { recursive: true, force: true });
});

/** Writes raw bytes (optionally in timed pieces) and collects what the server sends until it closes. */
function exchange(pieces: string[], pauseMs = 0): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(server.port, '127.0.0.1');
    let text = '';
    socket.on('data', (chunk) => (text += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(text));
    let index = 0;
    const next = (): void => {
      if (index >= pieces.length || socket.destroyed) return;
      socket.write(pieces[index++]);
      setTimeout(next, pauseMs);
    };
    next();
  });
}

const statusOf = (text: string): string => text.split('\r\n')[0];
const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

describe("the mock server's HTTP edge", () => {
  it.each([
    ['a malformed request line', 'GARBAGE\r\n\r\n', 'HTTP/1.1 400 Bad Request', 'BAD_REQUEST'],
    [
      'a request without Host',
      'GET /rest/users HTTP/1.1\r\nConnection: close\r\n\r\n',
      'HTTP/1.1 400 Bad Request',
      'BAD_REQUEST',
    ],
    [
      'headers past the size limit',
      `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
      'HTTP/1.1 431 Request Header Fields Too Large',
      'HEADERS_TOO_LARGE',
    ],
  ])('answers %s with JSON, not the bare status Node sends', async (_what, raw, status, code) => {
    const text = await exchange([raw]);
    expect(statusOf(text)).toBe(status);
    expect(bodyOf(text)).toMatchObject({ code });
  });

  it('ends a body trickled past the request timeout with a JSON 408', async () => {
    const head = 'POST /rest/users HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nContent-Length: 20\r\n\r\n';
    const text = await exchange([head, '{', '"', 'a', '"', ':', '1', '}'], 200);
    expect(statusOf(text)).toBe('HTTP/1.1 408 Request Timeout');
    expect(bodyOf(text)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
  });

  it('answers a body past the body limit with 413 JSON', async () => {
    const response = await fetch(`${server.url}/rest/users`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'x'.repeat(2000) }),
    });
    expect(response.status).toBe(413);
    expect(await response.json()).toMatchObject({ code: 'BODY_TOO_LARGE' });
  });
});
