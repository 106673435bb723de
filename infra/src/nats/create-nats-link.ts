import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';

export interface NatsLinkOptions {
  servers: string | string[];
  /** Connection name shown by the server's monitoring. */
  name: string;
  logger: Logger;
}

/** A NATS connection that is made in the background and retried forever, and says whether it is up. */
export interface NatsLink {
  /** Resolves with the connection once the first connect succeeded. */
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

  const connecting = connect({
    servers: options.servers,
    name: options.name,
    // Reconnect forever, and keep trying also when the server is not there at start.
    maxReconnectAttempts: -1,
    waitOnFirstConnect: true,
    reconnectTimeWait: 1000,
    // Async stack traces cost about a fifth of the request/reply throughput and we never print them.
    noAsyncTraces: true,
  }).then(async (nc) => {
    connection = nc;
    connected = true;
    logger.info({ server: nc.getServer() }, 'connected to NATS');
    if (closing) await nc.drain();
    void watchStatus(nc);
    return nc;
  });
  // A rejected connect is only seen by whoever awaits ready(); keep it from being an unhandled rejection.
  connecting.catch((err: unknown) => logger.error({ err }, 'could not connect to NATS'));

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
      if (connection && !connection.isClosed() && !connection.isDraining()) await connection.drain();
    },
  };
}
