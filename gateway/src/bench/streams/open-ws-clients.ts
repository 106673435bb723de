import { WebSocket } from 'ws';
import { openInBatches, type BenchEvent, type ClientSet, type Receive, type ReceiveOther } from './bench-event';

/**
 * `count` WebSocket clients (the `ws` package) of the gateway's stream at `url` (`ws://…`: the same path as SSE, on
 * upgrade), each its own connection; every text frame is `{id?, event, data}`.
 */
export async function openWsClients(
  url: string,
  count: number,
  receive: Receive,
  other: ReceiveOther,
): Promise<ClientSet> {
  const sockets = await openInBatches(
    count,
    (index) =>
      new Promise<WebSocket>((resolve, reject) => {
        const ws = new WebSocket(url, { perMessageDeflate: false });
        ws.on('message', (data: Buffer) => {
          const frame = JSON.parse(data.toString()) as { event: string; data: unknown };
          if (frame.event === 'message') receive(index, frame.data as BenchEvent);
          else other(index, frame.event, JSON.stringify(frame.data));
        });
        ws.once('open', () => resolve(ws));
        ws.once('unexpected-response', (_req, res) =>
          reject(new Error(`WebSocket client ${index}: ${res.statusCode}`)),
        );
        ws.once('error', reject);
      }),
  );
  return {
    stall(index) {
      sockets[index].pause();
    },
    resume(index) {
      sockets[index].resume();
    },
    async close() {
      for (const ws of sockets) ws.terminate();
    },
  };
}
