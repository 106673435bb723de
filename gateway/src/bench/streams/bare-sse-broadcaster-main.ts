// The bare SSE reference: `node bare-sse-broadcaster-main.js <natsUrl> <port>` subscribes to the bench subject and
// writes every message, as an SSE `message` event, to every open response (any path but /ready) of a plain Node HTTP server, nothing else:
// the floor this machine gives just now to a broadcast to as many SSE clients, what the gateway's delivery times
// compare to. Only the streams bench runs this file.
import { createServer, type ServerResponse } from 'node:http';
import { connect } from 'nats';
import { SUBJECT } from './bench-event';

const [natsUrl, port] = process.argv.slice(2);

async function start(): Promise<void> {
  const responses = new Set<ServerResponse>();
  const http = createServer((req, res) => {
    if (req.url === '/ready') {
      res.end('ok');
      return;
    }
    res.writeHead(200, { 'content-type': 'text/event-stream', 'cache-control': 'no-store' });
    res.write('retry: 3000\n\n');
    responses.add(res);
    req.once('close', () => responses.delete(res));
  });
  const nc = await connect({ servers: natsUrl });
  nc.subscribe(SUBJECT, {
    callback: (_err, msg) => {
      const event = Buffer.concat([Buffer.from('event: message\ndata: '), msg.data, Buffer.from('\n\n')]);
      for (const res of responses) res.write(event);
    },
  });
  await nc.flush();
  http.listen(Number(port), '127.0.0.1');
}

start().catch((err: unknown) => {
  process.stderr.write(`bare SSE broadcaster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
