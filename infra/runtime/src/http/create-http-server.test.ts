import { connect } from 'node:net';
import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createHttpServer } from './create-http-server';

/**
 * Sends raw bytes and collects everything the server writes until it closes the connection. With `giveUpAfterMs`,
 * the client ends the connection itself then; `gaveUp` says whether it came to that before the server closed it.
 */
async function exchangeUntil(
  server: Server,
  raw: string,
  giveUpAfterMs = 0,
): Promise<{ text: string; gaveUp: boolean }> {
  const { port } = server.address() as AddressInfo;
  let timer: NodeJS.Timeout | undefined;
  let gaveUp = false;
  const text = await new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let received = '';
    socket.on('data', (chunk) => (received += chunk.toString()));
    socket.on('error', reject);
    socket.on('close', () => resolve(received));
    socket.write(raw);
    if (giveUpAfterMs) {
      timer = setTimeout(() => {
        gaveUp = true;
        socket.end();
      }, giveUpAfterMs);
    }
  }).finally(() => clearTimeout(timer));
  return { text, gaveUp };
}

async function exchange(server: Server, raw: string, giveUpAfterMs = 0): Promise<string> {
  return (await exchangeUntil(server, raw, giveUpAfterMs)).text;
}

const statusOf = (text: string): string => text.split('\r\n')[0];
const bodyOf = (text: string): unknown => JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));

describe('createHttpServer', () => {
  let server: Server;
  beforeAll(async () => {
    server = createHttpServer(
      (req, res) => {
        // Answers once the whole body has arrived, as a JSON API does.
        req.resume();
        req.on('end', () => {
          res.writeHead(200, { 'content-type': 'text/plain', 'content-length': '2' });
          res.end('ok');
        });
      },
      { limits: { headersTimeoutMs: 300, requestTimeoutMs: 600 } },
    );
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  });
  afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('passes a well-formed request to the listener', async () => {
    const text = await exchange(server, 'GET / HTTP/1.1\r\nHost: x\r\nConnection: close\r\n\r\n');
    expect(statusOf(text)).toBe('HTTP/1.1 200 OK');
    expect(text.endsWith('ok')).toBe(true);
  });

  it('answers a malformed request line with a JSON 400 and its reason phrase', async () => {
    const text = await exchange(server, 'GARBAGE\r\n\r\n');
    expect(statusOf(text)).toBe('HTTP/1.1 400 Bad Request');
    expect(bodyOf(text)).toEqual({ error: 'the request is not valid HTTP', code: 'BAD_REQUEST' });
  });

  it('answers an HTTP/1.1 request without Host with a JSON 400, not the bare one Node sends', async () => {
    const text = await exchange(server, 'GET / HTTP/1.1\r\n\r\n');
    expect(statusOf(text)).toBe('HTTP/1.1 400 Bad Request');
    expect(bodyOf(text)).toEqual({ error: 'an HTTP/1.1 request needs a Host header', code: 'BAD_REQUEST' });
  });

  it('answers an expectation other than 100-continue with a JSON 417', async () => {
    const text = await exchange(server, 'GET / HTTP/1.1\r\nHost: x\r\nExpect: bogus\r\n\r\n');
    expect(statusOf(text)).toBe('HTTP/1.1 417 Expectation Failed');
    expect(bodyOf(text)).toMatchObject({ code: 'EXPECTATION_FAILED' });
  });

  it('answers CONNECT with a JSON 405', async () => {
    const text = await exchange(server, 'CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n');
    expect(statusOf(text)).toBe('HTTP/1.1 405 Method Not Allowed');
    expect(bodyOf(text)).toMatchObject({ code: 'METHOD_NOT_ALLOWED' });
  });

  it('answers headers past the size limit with a JSON 431', async () => {
    const text = await exchange(server, `GET / HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`);
    expect(statusOf(text)).toBe('HTTP/1.1 431 Request Header Fields Too Large');
    expect(bodyOf(text)).toMatchObject({ code: 'HEADERS_TOO_LARGE' });
  });

  it('answers headers that stop arriving with a JSON 408 once the headers timeout has passed', async () => {
    // The client waits far longer than the server's timeout (and its once-a-second check of it): the server ends it.
    const { text, gaveUp } = await exchangeUntil(server, 'GET / HTTP/1.1\r\nHost: x\r\n', 20_000);
    expect(gaveUp).toBe(false);
    expect(statusOf(text)).toBe('HTTP/1.1 408 Request Timeout');
    expect(bodyOf(text)).toMatchObject({ code: 'REQUEST_TIMEOUT' });
  });

  it('ends a body trickled past the request timeout with a JSON 408', async () => {
    const text = await exchange(server, 'POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 100\r\n\r\nab', 20_000);
    expect(statusOf(text)).toBe('HTTP/1.1 408 Request Timeout');
  });
});

describe('createHttpServer limits', () => {
  it('takes a headers timeout above the request timeout as the request timeout, instead of refusing to start', () => {
    const server = createHttpServer(() => undefined, { limits: { headersTimeoutMs: 20_000, requestTimeoutMs: 5_000 } });
    expect(server.headersTimeout).toBe(5_000);
    expect(server.requestTimeout).toBe(5_000);
  });
});
