import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { toNatsServersAndAuth } from './nats-connect-options';
import { RestbusError } from '../errors/restbus-error';

const RETRY_MS = 500;

export interface NatsLinkOptions {
  servers: string | string[];
  /** Connection name shown by the server's monitoring. */
  name: string;
  /** Prefix of the reply subjects this connection makes (nats.js' default `_INBOX` when absent). */
  inboxPrefix?: string;
  logger: Logger;
}

/** A NATS connection that is made in the background and retried forever, and says whether it is up. */
export interface NatsLink {
  /** Resolves with the connection once the first connect succeeded; rejects when drained before that. */
  ready(): Promise<NatsConnection>;
  /** The connection, once there is one. */
  current(): NatsConnection | undefined;
  /** True while connected (false before the first connect, while reconnecting and after close). */
  isConnected(): boolean;
  /** Drains subscriptions and pending publishes, then closes; safe to call before the connection exists. */
  drain(): Promise<void>;
}

/** Connect failures that mean "NATS is not there (yet)": an outage to wait out, not a fault to investigate. */
const OUTAGE_CODES = new Set([
  'CONNECTION_REFUSED',
  'TIMEOUT',
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

function codeOf(err: unknown): string | undefined {
  const code = (err as { code?: unknown } | undefined)?.code;
  return typeof code === 'string' ? code : undefined;
}

export function createNatsLink(options: NatsLinkOptions): NatsLink {
  const logger = options.logger.child({ component: 'nats' });
  // `-n a,b,c` names a cluster; credentials come out of the URLs into connect options, and out of every log line.
  const { servers, ...auth } = toNatsServersAndAuth(options.servers);
  const where = servers.join(', ');
  let connection: NatsConnection | undefined;
  let connected = false;
  let closing = false;
  let wake = (): void => undefined;

  // Our own first-connect loop instead of nats.js' waitOnFirstConnect, so that drain() can stop it.
  async function connectUntilConnected(): Promise<NatsConnection> {
    // One line per change of why connecting fails, not one per attempt: a NATS that is not up yet is expected.
    let lastFailure: string | undefined;
    for (;;) {
      if (closing) throw new RestbusError('NATS_UNAVAILABLE', 'the NATS link was closed before it connected');
      try {
        return await connect({
          servers,
          ...auth,
          ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
          name: options.name,
          // Once connected, reconnect forever.
          maxReconnectAttempts: -1,
          reconnectTimeWait: 1000,
          timeout: 2000,
          // Async stack traces cost about a fifth of the request/reply throughput and we never print them.
          noAsyncTraces: true,
        });
      } catch (err) {
        const code = codeOf(err);
        const outage = code !== undefined && OUTAGE_CODES.has(code);
        const failure = outage ? 'outage' : (code ?? String(err));
        if (failure !== lastFailure) {
          lastFailure = failure;
          if (outage) {
            logger.warn({ servers, reason: code }, `NATS is not reachable at ${where}; retrying until it is`);
          } else {
            logger.error({ err, servers }, `cannot connect to NATS at ${where}; retrying`);
          }
        }
        await new Promise<void>((resolve) => {
          const timer = setTimeout(resolve, RETRY_MS);
          wake = () => {
            clearTimeout(timer);
            resolve();
          };
        });
      }
    }
  }

  const connecting = connectUntilConnected().then((nc) => {
    connection = nc;
    connected = true;
    logger.info({ server: nc.getServer() }, `connected to NATS at ${nc.getServer()}`);
    if (!closing) void watchStatus(nc);
    return nc;
  });
  // A rejected connect is only seen by whoever awaits ready(); keep it from being an unhandled rejection.
  connecting.catch(() => undefined);

  async function watchStatus(nc: NatsConnection): Promise<void> {
    // nats.js reports reconnect attempts as their own events; only the change of state is worth a line.
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect && connected) {
        connected = false;
        logger.warn({ server: status.data }, `lost NATS at ${String(status.data)}; reconnecting until it is back`);
      } else if (status.type === Events.Reconnect) {
        connected = true;
        logger.info({ server: status.data }, `reconnected to NATS at ${String(status.data)}`);
      } else if (status.type === Events.Error) {
        // nats.js gives the server's error code here, not an Error (e.g. a permission violation on a subject).
        logger.error({ reason: status.data, context: status.permissionContext }, 'NATS reported an error');
      } else if (status.type === Events.LDM) {
        logger.warn(
          { server: status.data },
          'the NATS server is entering lame duck mode and will close the connection soon',
        );
      }
    }
  }

  void logClose();
  async function logClose(): Promise<void> {
    const nc = await connecting.catch(() => undefined);
    if (!nc) return;
    const err = await nc.closed();
    connected = false;
    if (err) logger.error({ err }, 'NATS connection closed with an error');
    else logger.info('NATS connection closed');
  }

  return {
    ready: () => connecting,
    current: () => connection,
    isConnected: () => connected && connection !== undefined && !connection.isClosed(),
    async drain() {
      closing = true;
      wake();
      // Wait for a connect attempt under way, so that nothing is left running after drain resolves.
      const nc = await connecting.catch(() => undefined);
      if (nc && !nc.isClosed() && !nc.isDraining()) await nc.drain();
      else if (nc) await nc.closed();
    },
  };
}
