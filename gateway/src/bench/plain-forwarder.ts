import { createServer, type Server } from 'node:http';
import { connect } from 'nats';

/**
 * The reference floor of this architecture written plainly: `http.createServer` and `nc.request` with default
 * client options, no framework, no routing beyond one subject, no logging.
 */
export async function startPlainForwarder(natsUrl: string, subject: string): Promise<Server> {
  const nc = await connect({ servers: natsUrl });
  const server = createServer((req, res) => {
    const chunks: Buffer[] = [];
    req.on('data', (chunk: Buffer) => chunks.push(chunk));
    req.on('end', () => {
      const message = JSON.stringify({
        method: req.method?.toLowerCase(),
        uri: req.url,
        request: { headers: req.headers, body: Buffer.concat(chunks).toString() },
      });
      nc.request(subject, message, { timeout: 2000 }).then(
        (msg) => {
          const reply = msg.json<{ status?: number; headers?: Record<string, string>; body?: unknown }>();
          res.writeHead(reply.status ?? 200, { 'content-type': 'application/json', ...reply.headers });
          res.end(JSON.stringify(reply.body));
        },
        () => {
          res.writeHead(502);
          res.end();
        },
      );
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  return server;
}
