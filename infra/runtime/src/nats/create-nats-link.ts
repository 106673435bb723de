import { connect, Events, type NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { toNatsServersAndAuth } from './nats-connect-options';
import { toNatsSecurityOptions, type NatsSecurity } from './to-nats-security-options';
import { readErrorCode } from '../errors/read-caught-error';
import { RestbusError } from '../errors/restbus-error';
import { createMovingConnection, type MoveReason, type MovingConnection } from './create-moving-connection';

const RETRY_MS = 500;
const RECONNECT_MS = 1000;
// A server we can no longer reach (a partition: no TCP error, nothing comes back) is left once this many pings in a
// row, one every PING_MS, went unanswered: within about 4 s, not nats.js' default 2 min × 2, while requests sent into
// it are lost. A pong later than 2 s on a live server costs a needless reconnect, which loses nothing.
const PING_MS = 1000;
const MAX_PINGS_OUT = 2;
// How long a connection left for a lame-duck server is kept for the requests made on it before the move (their
// replies come back on it), and how long its drain may take: together well within nats-server's grace period.
const SETTLE_MS = 2500;
const DRAIN_MS = 2500;
// The new connection's subscriptions reach its server before the flush returns, the other servers a moment later
// (route gossip): the old ones are kept that long at least, so that no server sees neither.
const PROPAGATE_MS = 100;

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
  /**
   * Resolves with the connection once the first connect succeeded; rejects when drained before that. It is the
   * same object for the link's life, also when the link moves to another server (see createMovingConnection).
   */
  ready(): Promise<NatsConnection>;
  /** The connection (the one ready() gives), once there is one. */
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
  // The nats.js connection in use now, and what the process holds: one object that follows it across moves.
  let connection: NatsConnection | undefined;
  let moving: MovingConnection | undefined;
  let connected = false;
  let lostAt = 0;
  const reconnectWaiters = new Set<(connected: boolean) => void>();
  let closing = false;
  let wake = (): void => undefined;
  // The connection being left for a server in lame duck mode, while the next one is being made.
  let leavingFrom: NatsConnection | undefined;
  // Connections left behind, until they are drained.
  const draining = new Set<Promise<void>>();
  // The most servers a server of ours ever named (its INFO's connect_urls, itself included): the cluster's size.
  let largestView = 0;

  const connectTo = (list: string[]): Promise<NatsConnection> =>
    connect({
      servers: list,
      ...auth,
      ...security,
      ...(options.inboxPrefix ? { inboxPrefix: options.inboxPrefix } : {}),
      name: options.name,
      // Once connected, reconnect forever.
      maxReconnectAttempts: -1,
      reconnectTimeWait: RECONNECT_MS,
      // nats.js' own delay plus up to 100 ms of jitter (1 s with TLS).
      reconnectJitter: 100,
      reconnectJitterTLS: 1000,
      pingInterval: PING_MS,
      maxPingOut: MAX_PINGS_OUT,
      timeout: 2000,
      // Async stack traces cost about a fifth of the request/reply throughput and we never print them.
      noAsyncTraces: true,
    });

  // Our own first-connect loop instead of nats.js' waitOnFirstConnect, so that drain() can stop it.
  async function connectUntilConnected(): Promise<NatsConnection> {
    // One line per change of why connecting fails, not one per attempt: a NATS that is not up yet is expected.
    let lastFailure: string | undefined;
    for (;;) {
      if (closing) throw new RestbusError('NATS_UNAVAILABLE', 'the NATS link was closed before it connected');
      try {
        return await connectTo(servers);
      } catch (err) {
        const code = readErrorCode(err);
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

  const linkCloser = {
    drain: () => link.drain(),
    // close() as nats.js means it: at once, without waiting for a server (which may be down) to confirm a drain.
    close: async () => {
      closing = true;
      wake();
      await connection?.close();
      await link.drain();
    },
  };

  const connecting = connectUntilConnected().then((nc) => {
    connection = nc;
    moving = createMovingConnection(nc, linkCloser);
    connected = true;
    logger.info({ server: nc.getServer() }, `connected to NATS at ${nc.getServer()}`);
    follow(nc);
    return moving.connection;
  });
  // A rejected connect is only seen by whoever awaits ready(); keep it from being an unhandled rejection.
  connecting.catch(() => undefined);

  /** Watches a connection for as long as it is the link's: its status, and its close. */
  function follow(nc: NatsConnection): void {
    largestView = Math.max(largestView, viewOf(nc));
    if (!closing) void watchStatus(nc);
    void watchClose(nc);
  }

  async function watchStatus(nc: NatsConnection): Promise<void> {
    // nats.js reports reconnect attempts as their own events; only the change of state is worth a line.
    for await (const status of nc.status()) {
      // A connection left behind reports its own end: that is not the link's.
      if (nc !== connection) continue;
      moving?.pushStatus(status);
      if (status.type === Events.Disconnect) {
        if (connected)
          logger.warn({ server: status.data }, `lost NATS at ${String(status.data)}; reconnecting until it is back`);
        if (connected) lostAt = performance.now();
        connected = false;
      } else if (status.type === Events.Reconnect) {
        connected = true;
        for (const waiter of reconnectWaiters) waiter(true);
        logger.info({ server: status.data }, `reconnected to NATS at ${String(status.data)}`);
      } else if (status.type === Events.Error) {
        // nats.js gives the server's error code here, not an Error (e.g. a permission violation on a subject).
        logger.error({ reason: status.data, context: status.permissionContext }, 'NATS reported an error');
      } else if (status.type === Events.LDM) {
        void moveAway(nc, String(status.data), 'lame-duck');
      } else if (status.type === Events.Update) {
        if (isCutOff(nc)) void moveAway(nc, nc.getServer(), 'cut-off');
      }
    }
  }

  async function watchClose(nc: NatsConnection): Promise<void> {
    const err = await nc.closed();
    if (nc !== connection) return;
    connected = false;
    for (const waiter of reconnectWaiters) waiter(false);
    if (err) logger.error({ err }, 'NATS connection closed with an error');
    else logger.info('NATS connection closed');
    moving?.end(err || undefined);
  }

  /** How many servers a connection's server names for clients to use: itself and the peers it has routes to. */
  function viewOf(nc: NatsConnection): number {
    return nc.info?.connect_urls?.length ?? 0;
  }

  /**
   * A server that names no more than half the servers it named before has lost its routes to most of its peers
   * (a partition: it tells its clients when it drops a route that stopped answering its pings). It still takes our
   * publishes, and routes them nowhere: a request to a service on another node, a write to a stream led elsewhere,
   * is lost. A server with a majority of the cluster (a peer killed, or cut off itself) is kept.
   */
  function isCutOff(nc: NatsConnection): boolean {
    const view = viewOf(nc);
    largestView = Math.max(largestView, view);
    return view > 0 && view * 2 <= largestView;
  }

  /**
   * A server in lame duck mode has closed its listener and will close our connection after its grace period.
   * Make before break: a second connection is made to another server while the first still serves; the process
   * moves to it (its subscriptions are made there, then its publishes go there), and only then is the first one
   * drained, once the replies to the requests made on it are in: nothing on its way on it is lost. Other servers
   * are those of the -n list and those the lame-duck server's INFO gossips (nats.js' ignoreClusterUpdates is off).
   * The same when the server is cut off from its peers (isCutOff), to a server that sees more of the cluster.
   */
  async function moveAway(from: NatsConnection, server: string, reason: MoveReason): Promise<void> {
    const bare = (url: string): string => url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
    const others = [...new Set([...servers, ...(from.info?.connect_urls ?? [])])].filter(
      (url) => bare(url) !== bare(server) && bare(url) !== bare(from.getServer()),
    );
    if (closing || leavingFrom === from) return;
    const why =
      reason === 'lame-duck' ? 'is entering lame duck mode' : 'lost its routes to most of the other NATS servers';
    if (others.length === 0) {
      logger.warn(
        { server },
        reason === 'lame-duck'
          ? 'the NATS server is entering lame duck mode and will close the connection soon'
          : `the NATS server ${why}; there is no other server to move to`,
      );
      return;
    }
    leavingFrom = from;
    let next: NatsConnection;
    try {
      next = await connectTo(others);
    } catch (err) {
      leavingFrom = undefined;
      logger.warn({ err, server, others }, `the NATS server ${why} and no other server takes a connection; staying`);
      return;
    }
    leavingFrom = undefined;
    // A server cut off as well (all of them apart from each other) is no better: stay where we are.
    const worse = reason === 'cut-off' && viewOf(next) <= viewOf(from);
    if (closing || from !== connection || !moving || worse) {
      if (worse) logger.warn({ server, tried: next.getServer() }, `the NATS server ${why}; no other server sees more`);
      await next.close();
      return;
    }
    connection = next;
    const listened = moving.moveTo(next, reason);
    connected = true;
    follow(next);
    for (const waiter of reconnectWaiters) waiter(true);
    // The subscriptions are on the new server once it answers a ping: from then on the old connection may go.
    await within(next.flush(), SETTLE_MS).catch(() => undefined);
    logger.info(
      { server: next.getServer(), left: server, reason },
      `moved to NATS at ${next.getServer()}: ${server} ${why}`,
    );
    // What moves on its own (a KV copy started afresh) has the time the old connection is kept for.
    await within(listened, SETTLE_MS).catch(() => undefined);
    const drained = retire(from);
    draining.add(drained);
    void drained.finally(() => draining.delete(drained));
  }

  /** Drains a connection left behind, once the requests made on it have their replies (or waited long enough). */
  async function retire(nc: NatsConnection): Promise<void> {
    const started = performance.now();
    await new Promise((resolve) => setTimeout(resolve, PROPAGATE_MS));
    while (pendingRequests(nc) > 0 && performance.now() - started < SETTLE_MS && !nc.isClosed()) {
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    if (nc.isClosed()) return;
    try {
      await within(nc.isDraining() ? nc.closed() : nc.drain(), DRAIN_MS);
    } catch {
      // A drain that cannot finish (its server went away meanwhile) must not keep the connection open.
    }
    if (!nc.isClosed()) await nc.close();
  }

  const link: NatsLink = {
    ready: () => connecting,
    current: () => moving?.connection,
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
      await connecting.catch(() => undefined);
      const nc = connection;
      if (nc && !nc.isClosed() && !nc.isDraining()) await nc.drain();
      else if (nc) await nc.closed();
      await Promise.all([...draining]);
    },
  };
  return link;
}

/** Requests made on a connection whose replies have not come (nats.js' own request/reply, e.g. JetStream's). */
function pendingRequests(nc: NatsConnection): number {
  // A private field of nats.js, read step by step: a release that renames it gives 0 rather than a throw.
  const protocol: unknown = Reflect.get(nc, 'protocol');
  const mux: unknown = typeof protocol === 'object' && protocol ? Reflect.get(protocol, 'muxSubscriptions') : undefined;
  const size: unknown = typeof mux === 'object' && mux ? Reflect.get(mux, 'size') : undefined;
  return typeof size === 'function' ? Number(size.call(mux)) : 0;
}

function within<T>(promise: Promise<T>, ms: number): Promise<T> {
  let timer: NodeJS.Timeout | undefined;
  return Promise.race([
    promise,
    new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new Error(`not done within ${ms} ms`)), ms);
    }),
  ]).finally(() => clearTimeout(timer));
}
