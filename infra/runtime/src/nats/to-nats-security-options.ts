import { readFileSync } from 'node:fs';
import { credsAuthenticator, type Authenticator, type ConnectionOptions, type TlsOptions } from 'nats';
import { describeCredsProblem } from './check-creds-file';
import { readErrorCode } from '../errors/read-caught-error';

/** Files of a TLS connection to NATS, as nats.js on Node reads them (PEM), at every connect. */
export interface NatsTlsFiles {
  /** CA bundle that verifies the servers (the system's CAs when absent). */
  caFile?: string;
  /** Client certificate and its key, for servers that verify clients (mutual TLS); one needs the other. */
  certFile?: string;
  keyFile?: string;
}

/** How a connection proves who it is and checks whom it talks to, beside `user:password@` or `token@` in a URL. */
export interface NatsSecurity {
  /** TLS: given at all, even as `{}`, a server that offers no TLS is refused instead of spoken to in clear text. */
  tls?: NatsTlsFiles;
  /** A credentials file (user JWT and nkey seed) for decentralised auth; read again at every connect. */
  credsFile?: string;
}

/**
 * The nats.js options for TLS and a credentials file. A `tls://` URL asks for TLS as it does in the other NATS
 * clients: nats.js on Node drops the scheme and would talk in clear text to a server that allows it.
 * `onStaleCreds` hears of a credentials file that can no longer be read or used; the last good one is kept, because
 * an authenticator that throws on a reconnect makes nats.js close the connection for good.
 */
export function toNatsSecurityOptions(
  security: NatsSecurity,
  servers: readonly string[],
  onStaleCreds: (problem: string) => void,
): Pick<ConnectionOptions, 'tls' | 'authenticator'> {
  const tlsScheme = servers.some((server) => /^\s*tls:\/\//i.test(server));
  const tls: TlsOptions | undefined =
    security.tls || tlsScheme
      ? Object.fromEntries(Object.entries(security.tls ?? {}).filter(([, file]) => file !== undefined))
      : undefined;
  return {
    ...(tls ? { tls } : {}),
    ...(security.credsFile ? { authenticator: readCredsAtEachConnect(security.credsFile, onStaleCreds) } : {}),
  };
}

function readCredsAtEachConnect(file: string, onStaleCreds: (problem: string) => void): Authenticator {
  // A renewed file (a user JWT that expires, a mounted secret that is swapped) is taken on the next reconnect.
  let good: Uint8Array | undefined;
  let staleSaid = false;
  return (nonce) => {
    let problem: string | undefined;
    try {
      const bytes = readFileSync(file);
      problem = describeCredsProblem(bytes);
      if (problem === undefined) {
        good = bytes;
        staleSaid = false;
      }
    } catch (err) {
      problem = `cannot be read (${readErrorCode(err) ?? String(err)})`;
    }
    if (!good) throw new Error(`the NATS credentials file ${file} ${problem}`);
    if (problem !== undefined && !staleSaid) {
      staleSaid = true;
      onStaleCreds(problem);
    }
    return credsAuthenticator(good)(nonce);
  };
}
