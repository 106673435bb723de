import { connect, type Socket } from 'node:net';
import type { HostileFrame } from './hostile-frames';
import { findCloseCode } from './read-server-frames';

const HANDSHAKE = (path: string): string =>
  `GET ${path} HTTP/1.1\r\nHost: x\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n` +
  'Sec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\nSec-WebSocket-Version: 13\r\n\r\n';
export interface FrameOutcome {
  /** Whether the stream opened (101): a case sent on a refused upgrade tests nothing. */
  upgraded: boolean;
  /** The start of the answer when the stream did not open. */
  head?: string;
  /** The code of the server's close frame; none when it sent none in the case's time. */
  code?: number;
}

/**
 * When the socket has closed, whatever came before: events.once would reject on an 'error' first, and a server that
 * cuts a hostile client resets its connection (ECONNRESET on the client) as often as it ends it.
 */
export const closeOf = (socket: Socket): Promise<void> =>
  new Promise((resolve) => socket.once('close', () => resolve()));

/** How long a case may keep its connection before the client ends it: the server keeps a benign one open. */
const CASE_MS = 300;

/**
 * Opens a stream WebSocket on `path` by hand, sends one hostile frame, and returns the code of the close frame the
 * server sent. The connection is destroyed afterwards either way.
 */
export async function sendHostileFrame(port: number, path: string, frame: HostileFrame): Promise<FrameOutcome> {
  const socket = connect(port, '127.0.0.1');
  socket.on('error', () => undefined);
  const closed = closeOf(socket);
  let data = Buffer.alloc(0);
  socket.on('data', (chunk: Buffer) => (data = Buffer.concat([data, chunk])));
  socket.write(HANDSHAKE(path));
  const headEnd = (): number => data.indexOf('\r\n\r\n');
  for (let waited = 0; headEnd() < 0 && !socket.destroyed && waited < 5000; waited += 5) {
    await new Promise((resolve) => setTimeout(resolve, 5));
  }
  if (!data.subarray(0, 13).equals(Buffer.from('HTTP/1.1 101 '))) {
    socket.destroy();
    return { upgraded: false, head: data.toString('latin1').slice(0, 600) };
  }
  const bodyStart = headEnd() + 4;
  socket.write(frame.bytes);
  if (frame.endAfter) socket.end();
  await Promise.race([closed, new Promise((resolve) => setTimeout(resolve, CASE_MS))]);
  socket.destroy();
  return { upgraded: true, code: findCloseCode(data.subarray(bodyStart)) };
}
