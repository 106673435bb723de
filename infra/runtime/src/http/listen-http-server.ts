import type { Server } from 'node:http';
import { describeListenError, type ListenTarget } from './describe-listen-error';

/** Where a server listens once it does: the port it got (the system's choice for 0) and a URL a person can open. */
export interface Listening {
  port: number;
  /** `http://localhost:<port>` when it listens on every address, else its own address. */
  url: string;
}

/**
 * Starts a server listening, the one way every restbus program does: a port that is taken or not allowed rejects
 * with the PORT_UNAVAILABLE error that names it and how to choose another (describeListenError), any other failure
 * as it came. The caller releases what it started before the listen.
 */
export async function listenHttpServer(server: Server, target: ListenTarget): Promise<Listening> {
  try {
    await new Promise<void>((resolve, reject) => {
      server.once('error', reject);
      server.listen(target.port, target.host, () => {
        server.off('error', reject);
        resolve();
      });
    });
  } catch (err) {
    throw describeListenError(err, target) ?? err;
  }
  const address = server.address();
  // A server given a port never listens on a pipe; the check keeps the type honest without a cast.
  if (address === null || typeof address === 'string') throw new Error(`the server listens on ${address}, not a port`);
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const local = host === '0.0.0.0' || host === '[::]';
  return { port: address.port, url: `http://${local ? 'localhost' : host}:${address.port}` };
}
