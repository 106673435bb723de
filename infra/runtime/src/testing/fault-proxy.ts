import { createServer, connect, type AddressInfo, type Socket } from 'node:net';

/**
 * What a fault proxy does with the bytes between its two ends:
 * - `pass`: forwards them as they come;
 * - `blackhole`: keeps every connection open (new ones are accepted too) and forwards nothing either way, as a
 *   network partition does: neither end sees an error, the sender's buffers fill, only its own timeouts tell;
 * - `delay`: forwards each chunk `delayMs` later (each way), in order.
 */
export type FaultMode = { kind: 'pass' } | { kind: 'blackhole' } | { kind: 'delay'; delayMs: number };

/** A TCP proxy between a test's programs that can cut, slow down and heal the link it stands for. */
export interface FaultProxy {
  /** The port it listens on (127.0.0.1). */
  readonly port: number;
  readonly mode: FaultMode;
  /** Changes what it does from now on; `pass` heals: what a blackhole held back is forwarded then. */
  setMode(mode: FaultMode): void;
  /** Connections it holds now. */
  connections(): number;
  close(): Promise<void>;
}

interface Pipe {
  from: Socket;
  to: Socket;
  /** Chunks held back while cut off (or waiting out a delay), in order. */
  held: Buffer[];
  /** Chunks scheduled by a delay that have not been written yet. */
  inFlight: number;
}

/**
 * Starts a proxy on a free port of 127.0.0.1 to `target` (a port on 127.0.0.1). A blackhole stops reading from
 * both ends, so the kernel buffers fill and the writer blocks as behind a real partition; the bytes already read
 * are held and forwarded once the link is healed, as TCP would retransmit them.
 */
export async function startFaultProxy(targetPort: number, mode: FaultMode = { kind: 'pass' }): Promise<FaultProxy> {
  let current = mode;
  const pipes = new Set<Pipe>();
  const sockets = new Set<Socket>();

  const flush = (pipe: Pipe): void => {
    while (pipe.held.length > 0 && current.kind === 'pass' && pipe.inFlight === 0) {
      pipe.to.write(pipe.held.shift() as Buffer);
    }
  };

  const forward = (pipe: Pipe, chunk: Buffer): void => {
    if (current.kind === 'blackhole') {
      pipe.held.push(chunk);
      pipe.from.pause();
    } else if (current.kind === 'delay') {
      pipe.inFlight++;
      setTimeout(() => {
        pipe.inFlight--;
        if (!pipe.to.destroyed) pipe.to.write(chunk);
      }, current.delayMs);
    } else if (pipe.held.length > 0 || pipe.inFlight > 0) {
      pipe.held.push(chunk);
      flush(pipe);
    } else {
      pipe.to.write(chunk);
    }
  };

  const join = (from: Socket, to: Socket): Pipe => {
    const pipe: Pipe = { from, to, held: [], inFlight: 0 };
    from.on('data', (chunk: Buffer) => forward(pipe, chunk));
    // An end that closes closes the other: a FIN is not held back by a partition that already let it through.
    from.on('close', () => to.destroy());
    from.on('error', () => to.destroy());
    if (current.kind === 'blackhole') from.pause();
    pipes.add(pipe);
    from.once('close', () => pipes.delete(pipe));
    return pipe;
  };

  const server = createServer((client) => {
    const upstream = connect(targetPort, '127.0.0.1');
    for (const socket of [client, upstream]) {
      sockets.add(socket);
      socket.setNoDelay(true);
      socket.once('close', () => sockets.delete(socket));
    }
    join(client, upstream);
    join(upstream, client);
  });
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const { port } = server.address() as AddressInfo;

  return {
    port,
    get mode() {
      return current;
    },
    setMode(next) {
      current = next;
      if (next.kind === 'blackhole') {
        for (const pipe of pipes) pipe.from.pause();
        return;
      }
      for (const pipe of pipes) {
        pipe.from.resume();
        if (next.kind === 'pass') {
          // A delay still under way is let through first; what a blackhole held goes now.
          const drain = (): void => {
            if (pipe.inFlight > 0) setTimeout(drain, 5);
            else flush(pipe);
          };
          drain();
        } else {
          for (const chunk of pipe.held.splice(0)) forward(pipe, chunk);
        }
      }
    },
    connections: () => sockets.size / 2,
    async close() {
      for (const socket of sockets) socket.destroy();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
