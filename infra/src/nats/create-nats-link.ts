import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { RestbusError } from '../errors/restbus-error';

const RETRY_MS = 500;

export interface NatsLinkOptions {
  servers: string | string[];
  /** Connection name shown by the server's monitoring. */
  name: string;
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

export function createNatsLink(options: NatsLinkOptions): NatsLink {
  const logger = options.logger.child({ component: 'nats' });
  let connection: NatsConnection | undefined;
  let connected = false;
  let closing = false;
  let wake = (): void => undefined;

  // Our own first-connect loop instead of nats.js' waitOnFirstConnect, so that drain() can stop it.
  async function connectUntilConnected(): Promise<NatsConnection> {
    for (let attempt = 1; ; attempt++) {
      if (closing) throw new RestbusError('NATS_UNAVAILABLE', 'the NATS link was closed before it connected');
      try {
        return await connect({
          servers: options.servers,
          name: options.name,
          // Once connected, reconnect forever.
          maxReconnectAttempts: -1,
          reconnectTimeWait: 1000,
          timeout: 2000,
          // Async stack traces cost about a fifth of the request/reply throughput and we never print them.
          noAsyncTraces: true,
        });
      } catch (err) {
        if (attempt === 1 || attempt % 30 === 0) logger.warn({ err, attempt }, 'NATS not reachable yet, retrying');
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
    logger.info({ server: nc.getServer() }, 'connected to NATS');
    if (!closing) void watchStatus(nc);
    return nc;
  });
  // A rejected connect is only seen by whoever awaits ready(); keep it from being an unhandled rejection.
  connecting.catch(() => undefined);

  async function watchStatus(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect) {
        connected = false;
        logger.warn({ server: status.data }, 'disconnected from NATS, reconnecting');
      } else if (status.type === Events.Reconnect) {
        connected = true;
        logger.info({ server: status.data }, 'reconnected to NATS');
      } else if (status.type === Events.Error || status.type === Events.LDM) {
        logger.warn({ status: status.type, data: status.data }, 'NATS status');
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
