// The bare socket.io reference: `node socket-io-broadcaster-main.js <natsUrl> <port>` subscribes to the bench subject
// and emits every message, as its text, to every connected socket.io client (`io.emit`), nothing else. Only the
// streams bench runs this file.
import { createServer } from 'node:http';
import { connect } from 'nats';
import { Server } from 'socket.io';
import { SUBJECT } from './bench-event';
import { SOCKET_IO_EVENT } from './open-socket-io-clients';

const [natsUrl, port] = process.argv.slice(2);

async function start(): Promise<void> {
  const http = createServer((_req, res) => res.end('ok'));
  const io = new Server(http, { serveClient: false });
  const nc = await connect({ servers: natsUrl });
  const decoder = new TextDecoder();
  nc.subscribe(SUBJECT, { callback: (_err, msg) => io.emit(SOCKET_IO_EVENT, decoder.decode(msg.data)) });
  await nc.flush();
  http.listen(Number(port), '127.0.0.1');
}

start().catch((err: unknown) => {
  process.stderr.write(`socket.io broadcaster: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
