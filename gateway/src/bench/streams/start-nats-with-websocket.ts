import { writeFile } from 'node:fs/promises';
import { join } from 'node:path';
import { connect } from 'nats';
import { findNatsServer, freePort, startChild, waitUntil, type Child } from '@restbus/infra/testing';

export interface WebSocketNats {
  /** `nats://127.0.0.1:<port>`: the publisher, the gateway and the socket.io broadcaster connect here. */
  url: string;
  /** `ws://127.0.0.1:<port>`: nats-server's own WebSocket listener, for the nats.ws clients. */
  wsUrl: string;
  child: Child;
}

/** nats-server (core NATS, no JetStream: the bench's subject is plain) with its WebSocket listener on, in `dir`. */
export async function startNatsWithWebSocket(dir: string): Promise<WebSocketNats> {
  const [port, wsPort] = [await freePort(), await freePort()];
  const config = join(dir, 'nats-server.conf');
  await writeFile(config, `listen: "127.0.0.1:${port}"\nwebsocket { listen: "127.0.0.1:${wsPort}", no_tls: true }\n`);
  const child = startChild('nats-server', findNatsServer(), ['-c', config], dir);
  const url = `nats://127.0.0.1:${port}`;
  await waitUntil(child, async () => {
    await (await connect({ servers: url, timeout: 500 })).close();
    return true;
  });
  return { url, wsUrl: `ws://127.0.0.1:${wsPort}`, child };
}
