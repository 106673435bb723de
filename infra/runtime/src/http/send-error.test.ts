import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { sendError } from './send-error';

describe('sendError', () => {
  let server: Server;
  afterEach(() => new Promise<void>((resolve) => server.close(() => resolve())));

  it('sends its own reason phrase even when an earlier writeHead failed after setting another', async () => {
    server = createServer((_req, res) => {
      try {
        res.writeHead(200, 'OK', { 'bad header': 'x' });
      } catch {
        sendError(res, 'BAD_REPLY', 'the reply has a header HTTP cannot carry');
      }
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(`${response.status} ${response.statusText}`).toBe('502 Bad Gateway');
    expect(await response.json()).toEqual({ error: 'the reply has a header HTTP cannot carry', code: 'BAD_REPLY' });
  });

  it.each([
    ['a 503 with Retry-After: 2', 'NO_RESPONDER', undefined, '2'],
    ['a 503 with the Retry-After it was given', 'STORE_UNAVAILABLE', { 'Retry-After': '5' }, '5'],
    ['no other status with Retry-After', 'UPSTREAM_TIMEOUT', undefined, null],
  ] as const)('answers %s', async (_what, code, headers, retryAfter) => {
    server = createServer((_req, res) => sendError(res, code, 'x', headers));
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const response = await fetch(`http://127.0.0.1:${(server.address() as AddressInfo).port}/`);
    expect(response.headers.get('retry-after')).toBe(retryAfter);
    await response.arrayBuffer();
  });
});
