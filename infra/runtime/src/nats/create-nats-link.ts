import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { toNatsServersAndAuth } from './nats-connect-options';
import { toNatsSecurityOptions, type NatsSecurity } from './to-nats-security-options';
import { RestbusError } from '../errors/restbus-error';

const RETRY_MS = 500;
const RECONNECT_MS = 1000;

export interface NatsLinkOptions extends NatsSecurity {
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
  /**
   * Resolves true once connected, waiting while the link moves to another server: at most `ms` counted from when
   * the connection was lost. False at once when it was lost longer ago (an outage, not a move), before the first
   * connect, and after close.
   */
  waitForConnection(ms: number): Promise<boolean>;
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
  const security = toNatsSecurityOptions(options, servers, (problem) =>
    logger.warn(
      { credsFile: options.credsFile, problem },
      `the NATS credentials file ${options.credsFile} ${problem}; reconnecting with the one read before`,
    ),
  );
  const where = servers.join(', ');
  let connection: NatsConnection | undefined;
  let connected = false;
  let lostAt = 0;
  const reconnectWaiters = new Set<(connected: boolean) => void>();
  let closing = false;
  let wake = (): void => undefined;
  // The server being left because it entered lame duck mode, until the link is on another one.
  let leaving: string | undefined;
  // Reconnect attempts to make without waiting, so that leaving a lame-duck server does not sit out nats.js' wait
  // on a server it connected to less than reconnectTimeWait ago (the lame-duck one itself, refused at once).
  let immediateDials = 0;

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
          ...security,
          ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
          name: options.name,
          // Once connected, reconnect forever.
          maxReconnectAttempts: -1,
          reconnectTimeWait: RECONNECT_MS,
          // nats.js' own delay (reconnectTimeWait plus up to 100 ms of jitter, 1 s with TLS), skipped while leaving.
          reconnectDelayHandler: () => {
            if (immediateDials > 0) {
              immediateDials--;
              return 0;
            }
            return RECONNECT_MS + Math.floor(Math.random() * (security.tls ? 1000 : 100));
          },
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
      if (status.type === Events.Disconnect) {
        if (connected && leaving === undefined)
          logger.warn({ server: status.data }, `lost NATS at ${String(status.data)}; reconnecting until it is back`);
        if (connected) lostAt = performance.now();
        connected = false;
      } else if (status.type === Events.Reconnect) {
        connected = true;
        for (const waiter of reconnectWaiters) waiter(true);
        if (leaving !== undefined) {
          logger.info(
            { server: status.data, left: leaving },
            `moved to NATS at ${String(status.data)}: ${leaving} is entering lame duck mode`,
          );
          leaving = undefined;
          immediateDials = 0;
        } else {
          logger.info({ server: status.data }, `reconnected to NATS at ${String(status.data)}`);
        }
      } else if (status.type === Events.Error) {
        // nats.js gives the server's error code here, not an Error (e.g. a permission violation on a subject).
        logger.error({ reason: status.data, context: status.permissionContext }, 'NATS reported an error');
      } else if (status.type === Events.LDM) {
        leaveLameDuck(nc, String(status.data));
      }
    }
  }

  /**
   * A server in lame duck mode has closed its listener and will close our connection within its lame duck
   * duration; moving now, while the others take new clients, beats being cut off later. nats.js dials its list in
   * turn, the lame-duck server first (refused at once), then the next; the cluster's announcements (nats.js'
   * ignoreClusterUpdates is left off) put the other nodes on that list when -n names only one.
   */
  function leaveLameDuck(nc: NatsConnection, server: string): void {
    // The lame-duck server's INFO lists the cluster's other client URLs; without them, the -n list may name some.
    const bare = (url: string): string => url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
    const gossiped = (nc.info?.connect_urls ?? []).filter((url) => bare(url) !== bare(server));
    if (closing || (gossiped.length === 0 && servers.length < 2)) {
      logger.warn({ server }, 'the NATS server is entering lame duck mode and will close the connection soon');
      return;
    }
    leaving = server;
    immediateDials = servers.length + gossiped.length;
    // Rejected only when the connection is closing or draining, when staying is right.
    nc.reconnect().catch(() => undefined);
  }

  void logClose();
  async function logClose(): Promise<void> {
    const nc = await connecting.catch(() => undefined);
    if (!nc) return;
    const err = await nc.closed();
    connected = false;
    for (const waiter of reconnectWaiters) waiter(false);
    if (err) logger.error({ err }, 'NATS connection closed with an error');
    else logger.info('NATS connection closed');
  }

  return {
    ready: () => connecting,
    current: () => connection,
    isConnected: () => connected && connection !== undefined && !connection.isClosed(),
    waitForConnection(ms) {
      if (connected && connection && !connection.isClosed()) return Promise.resolve(true);
      const left = lostAt + ms - performance.now();
      if (!connection || connection.isClosed() || closing || left <= 0) return Promise.resolve(false);
      return new Promise<boolean>((resolve) => {
        const done = (result: boolean): void => {
          clearTimeout(timer);
          reconnectWaiters.delete(done);
          resolve(result);
        };
        const timer = setTimeout(() => done(false), left);
        reconnectWaiters.add(done);
      });
    },
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
