import type { Server } from 'node:http';
import express from 'express';
import { connect } from 'nats';

/** The same forwarder written the naive way on Express 5: body parser, async route, res.set/status/send. */
export async function startExpressForwarder(natsUrl: string, subject: string, path: string): Promise<Server> {
  const nc = await connect({ servers: natsUrl });
  const app = express();
  app.use(express.raw({ type: () => true }));
  app.get(path, async (req, res) => {
    const message = JSON.stringify({
      method: req.method.toLowerCase(),
      uri: req.path,
      request: { headers: req.headers, query: req.query, body: Buffer.isBuffer(req.body) ? req.body.toString() : '' },
    });
    try {
      const reply = (await nc.request(subject, message, { timeout: 2000 })).json<{
        status?: number;
        headers?: Record<string, string>;
        body?: unknown;
      }>();
      res
        .set(reply.headers ?? {})
        .status(reply.status ?? 200)
        .send(reply.body);
    } catch {
      res.status(502).end();
    }
  });
  return new Promise((resolve) => {
    const server = app.listen(0, '127.0.0.1', () => resolve(server));
  });
}
