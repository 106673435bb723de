import type { Socket } from 'socket.io';

/** What is queued for one client: engine.io's packets not yet handed to the transport, and the WebSocket's own buffer. */
interface EngineConnection {
  on(event: 'packetCreate', listener: (packet: { data?: unknown }) => void): unknown;
  on(event: 'flush', listener: () => void): unknown;
  transport: { socket?: { bufferedAmount?: number; terminate?: () => void } };
  close(discard?: boolean): unknown;
}

// A broadcast hands the same text to every client in turn: its size is counted once, not once per client.
let lastText = '';
let lastBytes = 0;
function sizeOf(data: unknown): number {
  if (typeof data === 'string') {
    if (data !== lastText) {
      lastText = data;
      lastBytes = Buffer.byteLength(data);
    }
    return lastBytes;
  }
  return data instanceof Uint8Array ? data.byteLength : 0;
}

/**
 * Calls `onOverflow` (once) and drops the connection at once when more than `limit` bytes are queued for a client:
 * socket.io queues without bound for a client that reads slower than messages arrive, until the process runs out
 * of memory. Counted as packets are queued (O(1) each), so a broadcast costs no scan of anyone's queue.
 */
export function watchSendBuffer(socket: Socket, limit: number, onOverflow: (queuedBytes: number) => void): void {
  const conn = socket.conn as unknown as EngineConnection;
  let pending = 0;
  let cut = false;
  conn.on('flush', () => {
    pending = 0;
  });
  conn.on('packetCreate', (packet) => {
    pending += sizeOf(packet.data);
    if (cut) return;
    const queued = pending + (conn.transport.socket?.bufferedAmount ?? 0);
    if (queued <= limit) return;
    cut = true;
    onOverflow(queued);
    // Neither a close frame nor socket.io's disconnect packet would get past the queue: drop the connection.
    conn.transport.socket?.terminate?.();
    conn.close(true);
  });
}
