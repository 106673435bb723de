import { randomUUID } from 'node:crypto';
import { createServer, type Server } from 'node:http';

/**
 * The ceiling of any mock written on Node's HTTP server: `http.createServer` answering every request with the same
 * bytes (a request id, the type and length, the body), nothing read, routed or chosen. What the gateway's `-m` and
 * Prism do on top of this is what they cost.
 */
export async function startStaticAnswerer(body: unknown): Promise<Server> {
  const text = JSON.stringify(body);
  const length = Buffer.byteLength(text);
  const server = createServer((_req, res) => {
    res.writeHead(200, {
      'x-request-id': randomUUID(),
      'content-type': 'application/json; charset=utf-8',
      'content-length': length,
    });
    res.end(text);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
