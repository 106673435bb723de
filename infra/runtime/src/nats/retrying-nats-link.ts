import { connect, Events, type ConnectionOptions, type NatsConnection, type Status } from 'nats';
import type { Logger } from 'pino';
import { RestbusError } from '../errors/restbus-error';
import { createMovingConnection, type MoveReason, type MovingConnection } from './create-moving-connection';
import { describeConnectFailure, type ConnectFailure } from './describe-connect-failure';
import { listOtherServers } from './list-other-servers';
import { retireConnection } from './retire-connection';
import { toLinkConnectOptions } from './to-link-connect-options';
import { within } from './within';
import type { NatsLink, NatsLinkOptions } from './nats-link';

const RETRY_MS = 500;
// How long a connection left for a lame-duck server is kept for the requests made on it before the move (their
// replies come back on it), and how long its drain may take: together well within nats-server's grace period.
const SETTLE_MS = 2500;
const DRAIN_MS = 2500;

/** A move under way from the connection `from`, whose `server` is going away or cut off: `why`, for log lines. */
interface Move {
  from: NatsConnection;
  server: string;
  reason: MoveReason;
  why: string;
}

/**
 * The NatsLink createNatsLink makes: it connects in the background until it is connected (or drained), follows
 * its connection's status, and moves to another server when its server enters lame duck mode or is cut off.
 */
export class RetryingNatsLink implements NatsLink {
  private readonly logger: Logger;
  /** The server URLs without credentials: what may be logged. */
  private readonly servers: string[];
  private readonly connectOptions: Omit<ConnectionOptions, 'servers'>;
  private readonly where: string;
  private readonly connecting: Promise<NatsConnection>;
  // The nats.js connection in use now, and what the process holds: one object that follows it across moves.
  private connection: NatsConnection | undefined;
  private moving: MovingConnection | undefined;
  private connected = false;
  /** When the connection was last lost (performance.now()), for waitForConnection's budget. */
  private lostAt = 0;
  private readonly reconnectWaiters = new Set<(connected: boolean) => void>();
  private closing = false;
  /** Ends the pause between two first-connect attempts, so that drain() need not wait for it. */
  private wakeRetry = (): void => undefined;
  // The connection being left for a server in lame duck mode, while the next one is being made.
  private leavingFrom: NatsConnection | undefined;
  // Connections left behind, until they are drained.
  private readonly draining = new Set<Promise<void>>();
  // The most servers a server of ours ever named (its INFO's connect_urls, itself included): the cluster's size.
  private largestView = 0;

  constructor(options: NatsLinkOptions) {
    this.logger = options.logger.child({ component: 'nats' });
    const { servers, connectOptions } = toLinkConnectOptions(options, this.logger);
    this.servers = servers;
    this.connectOptions = connectOptions;
    this.where = servers.join(', ');
    this.connecting = this.connectUntilConnected().then((nc) => this.takeFirstConnection(nc));
    // A rejected connect is only seen by whoever awaits ready(); keep it from being an unhandled rejection.
    this.connecting.catch(() => undefined);
  }

  ready(): Promise<NatsConnection> {
    return this.connecting;
  }

  current(): NatsConnection | undefined {
    return this.moving?.connection;
  }

  isConnected(): boolean {
    return this.connected && this.connection !== undefined && !this.connection.isClosed();
  }

  waitForConnection(ms: number): Promise<boolean> {
    if (this.isConnected()) return Promise.resolve(true);
    const left = this.lostAt + ms - performance.now();
    if (!this.connection || this.connection.isClosed() || this.closing || left <= 0) return Promise.resolve(false);
    return new Promise<boolean>((resolve) => {
      const done = (result: boolean): void => {
        clearTimeout(timer);
        this.reconnectWaiters.delete(done);
        resolve(result);
      };
      const timer = setTimeout(() => done(false), left);
      this.reconnectWaiters.add(done);
    });
  }

  async drain(): Promise<void> {
    this.closing = true;
    this.wakeRetry();
    // Wait for a connect attempt under way, so that nothing is left running after drain resolves.
    await this.connecting.catch(() => undefined);
    const nc = this.connection;
    if (nc && !nc.isClosed() && !nc.isDraining()) await nc.drain();
    else if (nc) await nc.closed();
    await Promise.all([...this.draining]);
  }

  // The moving connection's close(), as nats.js means it: at once, without waiting for a server (which may be down)
  // to confirm a drain.
  private async closeAtOnce(): Promise<void> {
    this.closing = true;
    this.wakeRetry();
    await this.connection?.close();
    await this.drain();
  }

  private connectTo(list: string[]): Promise<NatsConnection> {
    return connect({ servers: list, ...this.connectOptions });
  }

  // Our own first-connect loop instead of nats.js' waitOnFirstConnect, so that drain() can stop it.
  private async connectUntilConnected(): Promise<NatsConnection> {
    // One line per change of why connecting fails, not one per attempt: a NATS that is not up yet is expected.
    let lastKind: string | undefined;
    for (;;) {
      if (this.closing) throw new RestbusError('NATS_UNAVAILABLE', 'the NATS link was closed before it connected');
      try {
        return await this.connectTo(this.servers);
      } catch (err) {
        const failure = describeConnectFailure(err);
        if (failure.kind !== lastKind) {
          lastKind = failure.kind;
          this.reportConnectFailure(err, failure);
        }
        await this.pauseBeforeRetry();
      }
    }
  }

  private reportConnectFailure(err: unknown, failure: ConnectFailure): void {
    const { servers, where } = this;
    if (failure.outage) {
      this.logger.warn({ servers, reason: failure.code }, `NATS is not reachable at ${where}; retrying until it is`);
    } else {
      this.logger.error({ err, servers }, `cannot connect to NATS at ${where}; retrying`);
    }
  }

  private pauseBeforeRetry(): Promise<void> {
    return new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, RETRY_MS);
      this.wakeRetry = () => {
        clearTimeout(timer);
        resolve();
      };
    });
  }

  /** Takes the first connection: what the process holds from now on is the moving connection made on it. */
  private takeFirstConnection(nc: NatsConnection): NatsConnection {
    this.connection = nc;
    this.moving = createMovingConnection(nc, { drain: () => this.drain(), close: () => this.closeAtOnce() });
    this.connected = true;
    this.logger.info({ server: nc.getServer() }, `connected to NATS at ${nc.getServer()}`);
    this.follow(nc);
    return this.moving.connection;
  }

  /** Watches a connection for as long as it is the link's: its status, and its close. */
  private follow(nc: NatsConnection): void {
    this.largestView = Math.max(this.largestView, countServersInView(nc));
    if (!this.closing) void this.watchStatus(nc);
    void this.watchClose(nc);
  }

  private async watchStatus(nc: NatsConnection): Promise<void> {
    for await (const status of nc.status()) {
      // A connection left behind reports its own end: that is not the link's.
      if (nc !== this.connection) continue;
      this.moving?.pushStatus(status);
      this.handleStatus(nc, status);
    }
  }

  private handleStatus(nc: NatsConnection, status: Status): void {
    // nats.js reports reconnect attempts as their own events; only the change of state is worth a line.
    if (status.type === Events.Disconnect) {
      if (this.connected) {
        this.logger.warn({ server: status.data }, `lost NATS at ${String(status.data)}; reconnecting until it is back`);
        this.lostAt = performance.now();
      }
      this.connected = false;
    } else if (status.type === Events.Reconnect) {
      this.connected = true;
      this.tellWaiters(true);
      this.logger.info({ server: status.data }, `reconnected to NATS at ${String(status.data)}`);
    } else if (status.type === Events.Error) {
      // nats.js gives the server's error code here, not an Error (e.g. a permission violation on a subject).
      this.logger.error({ reason: status.data, context: status.permissionContext }, 'NATS reported an error');
    } else if (status.type === Events.LDM) {
      void this.moveAway(nc, String(status.data), 'lame-duck');
    } else if (status.type === Events.Update) {
      if (this.isCutOff(nc)) void this.moveAway(nc, nc.getServer(), 'cut-off');
    }
  }

  private async watchClose(nc: NatsConnection): Promise<void> {
    const err = await nc.closed();
    if (nc !== this.connection) return;
    this.connected = false;
    this.tellWaiters(false);
    if (err) this.logger.error({ err }, 'NATS connection closed with an error');
    else this.logger.info('NATS connection closed');
    this.moving?.end(err || undefined);
  }

  /** Answers the callers of waitForConnection that wait. */
  private tellWaiters(connected: boolean): void {
    for (const waiter of this.reconnectWaiters) waiter(connected);
  }

  /**
   * A server that names no more than half the servers it named before has lost its routes to most of its peers
   * (a partition: it tells its clients when it drops a route that stopped answering its pings). It still takes our
   * publishes, and routes them nowhere: a request to a service on another node, a write to a stream led elsewhere,
   * is lost. A server with a majority of the cluster (a peer killed, or cut off itself) is kept.
   */
  private isCutOff(nc: NatsConnection): boolean {
    const view = countServersInView(nc);
    this.largestView = Math.max(this.largestView, view);
    return view > 0 && view * 2 <= this.largestView;
  }

  /**
   * A server in lame duck mode has closed its listener and will close our connection after its grace period.
   * Make before break: a second connection is made to another server while the first still serves; the process
   * moves to it (its subscriptions are made there, then its publishes go there), and only then is the first one
   * drained, once the replies to the requests made on it are in: nothing on its way on it is lost. Other servers
   * are those of the -n list and those the lame-duck server's INFO gossips (nats.js' ignoreClusterUpdates is off).
   * The same when the server is cut off from its peers (isCutOff), to a server that sees more of the cluster.
   */
  private async moveAway(from: NatsConnection, server: string, reason: MoveReason): Promise<void> {
    const others = listOtherServers(this.servers, from, server);
    if (this.closing || this.leavingFrom === from) return;
    const why =
      reason === 'lame-duck' ? 'is entering lame duck mode' : 'lost its routes to most of the other NATS servers';
    if (others.length === 0) {
      this.logger.warn(
        { server },
        reason === 'lame-duck'
          ? 'the NATS server is entering lame duck mode and will close the connection soon'
          : `the NATS server ${why}; there is no other server to move to`,
      );
      return;
    }
    this.leavingFrom = from;
    let next: NatsConnection;
    try {
      next = await this.connectTo(others);
    } catch (err) {
      this.leavingFrom = undefined;
      this.logger.warn(
        { err, server, others },
        `the NATS server ${why} and no other server takes a connection; staying`,
      );
      return;
    }
    this.leavingFrom = undefined;
    // A server cut off as well (all of them apart from each other) is no better: stay where we are.
    const worse = reason === 'cut-off' && countServersInView(next) <= countServersInView(from);
    if (this.closing || from !== this.connection || !this.moving || worse) {
      if (worse)
        this.logger.warn({ server, tried: next.getServer() }, `the NATS server ${why}; no other server sees more`);
      await next.close();
      return;
    }
    await this.switchTo(this.moving, next, { from, server, reason, why });
  }

  /** Makes `next` the link's connection, and drains the one left once what was on its way on it is done. */
  private async switchTo(moving: MovingConnection, next: NatsConnection, move: Move): Promise<void> {
    const { from, server, reason, why } = move;
    this.connection = next;
    const listened = moving.moveTo(next, reason);
    this.connected = true;
    this.follow(next);
    this.tellWaiters(true);
    // The subscriptions are on the new server once it answers a ping: from then on the old connection may go.
    await within(next.flush(), SETTLE_MS).catch(() => undefined);
    this.logger.info(
      { server: next.getServer(), left: server, reason },
      `moved to NATS at ${next.getServer()}: ${server} ${why}`,
    );
    // What moves on its own (a KV copy started afresh) has the time the old connection is kept for.
    await within(listened, SETTLE_MS).catch(() => undefined);
    const drained = retireConnection(from, SETTLE_MS, DRAIN_MS);
    this.draining.add(drained);
    void drained.finally(() => this.draining.delete(drained));
  }
}

/** How many servers a connection's server names for clients to use: itself and the peers it has routes to. */
function countServersInView(nc: NatsConnection): number {
  return nc.info?.connect_urls?.length ?? 0;
}
