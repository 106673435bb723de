import { RestbusError } from '../errors/restbus-error';
import { readErrorCode } from '../errors/read-caught-error';

/** The gateway's port, and a new project's mock server's: the one two restbus programs are likeliest to share. */
const RESTBUS_PORT = 3007;

export interface ListenTarget {
  port: number;
  /** The address listened on; absent, `0.0.0.0` or `::` mean every address. */
  host?: string;
  /** How to choose another port, given a suggestion, e.g. `(port) => \`--port ${port} or GATEWAY_PORT=${port}\``. */
  howToChoose(port: number): string;
}

function isEveryAddress(host: string | undefined): boolean {
  return host === undefined || host === '' || host === '0.0.0.0' || host === '::';
}

function suggestPort(port: number): number {
  if (port < 1024) return RESTBUS_PORT + 10;
  return port + 10 <= 65535 ? port + 10 : port - 10;
}

/**
 * Turns a failed `listen` on a port that is taken (EADDRINUSE) or not allowed (EACCES) into a one-line
 * `PORT_UNAVAILABLE` error saying which port, what usually holds it and how to choose another; undefined for
 * any other error.
 */
export function describeListenError(err: unknown, target: ListenTarget): RestbusError | undefined {
  const code = readErrorCode(err);
  if (code !== 'EADDRINUSE' && code !== 'EACCES') return undefined;
  const { port, host } = target;
  const where = isEveryAddress(host) ? `port ${port}` : `port ${port} on ${host}`;
  const choose = `choose another port with ${target.howToChoose(suggestPort(port))}`;
  if (code === 'EACCES') {
    const why = port < 1024 ? ' (ports below 1024 need root or the CAP_NET_BIND_SERVICE capability)' : '';
    return new RestbusError('PORT_UNAVAILABLE', `${where} is not allowed for this user${why}; ${choose}`, {
      cause: err,
    });
  }
  const holder =
    port === RESTBUS_PORT
      ? `: the restbus gateway and a new project's mock server both default to ${RESTBUS_PORT}, so another ` +
        'restbus process or a `docker compose up` stack probably holds it'
      : ' by another program';
  return new RestbusError('PORT_UNAVAILABLE', `${where} is already in use${holder}; ${choose}`, { cause: err });
}
