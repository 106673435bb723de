import { WebSocket } from 'ws';
import { openInBatches, SUBJECT, type BenchEvent, type ClientSet, type Receive } from './bench-event';

/**
 * `count` nats.ws clients of nats-server's own WebSocket listener at `url` (`ws://…`), each its own connection
 * subscribed to the bench subject. Node 20 has no global WebSocket: nats.ws gets the `ws` package's.
 */
export async function openNatsWsClients(url: string, count: number, receive: Receive): Promise<ClientSet> {
  (globalThis as { WebSocket?: unknown }).WebSocket ??= WebSocket;
  const { connect } = await import('nats.ws');
  const decoder = new TextDecoder();
  const connections = await openInBatches(count, async (index) => {
    const nc = await connect({ servers: url, reconnect: false });
    nc.subscribe(SUBJECT, {
      callback: (_err, msg) => receive(index, JSON.parse(decoder.decode(msg.data)) as BenchEvent),
    });
    await nc.flush(); // the subscription is the server's before the client counts as open
    return nc;
  });
  return {
    stall() {
      throw new Error('nats.ws clients cannot be stalled from here');
    },
    resume() {
      throw new Error('nats.ws clients cannot be stalled from here');
    },
    async close() {
      await Promise.all(connections.map((nc) => nc.close().catch(() => undefined)));
    },
  };
}
