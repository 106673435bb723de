import { io, type Socket } from 'socket.io-client';
import { openInBatches, type BenchEvent, type ClientSet, type Receive } from './bench-event';

/** The event name the bare socket.io broadcaster emits every NATS message under. */
export const SOCKET_IO_EVENT = 'bench';

/**
 * `count` socket.io-client 4.8 clients of `url`, each its own connection (`forceNew`), WebSocket transport from the
 * start (no long-polling first: the cheapest way socket.io delivers, so the comparison favours it).
 */
export async function openSocketIoClients(url: string, count: number, receive: Receive): Promise<ClientSet> {
  const sockets = await openInBatches(
    count,
    (index) =>
      new Promise<Socket>((resolve, reject) => {
        const socket = io(url, { transports: ['websocket'], forceNew: true, reconnection: false });
        socket.on(SOCKET_IO_EVENT, (text: string) => receive(index, JSON.parse(text) as BenchEvent));
        socket.once('connect', () => resolve(socket));
        socket.once('connect_error', (err) => reject(new Error(`socket.io client ${index}: ${err.message}`)));
      }),
  );
  return {
    stall() {
      throw new Error('socket.io clients cannot be stalled from here');
    },
    resume() {
      throw new Error('socket.io clients cannot be stalled from here');
    },
    async close() {
      for (const socket of sockets) socket.disconnect();
    },
  };
}
