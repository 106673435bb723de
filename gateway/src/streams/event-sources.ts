import { Events, type NatsConnection, type Status } from 'nats';
import { isRestbusError, RestbusError, type Logger } from '@restbus/infra';
import { CoreFeed } from './core-feed';
import type { Feed } from './feed';
import type { PullTiming } from './feed-consumer';
import { FeedMember } from './feed-member';
import { JetStreamFeed } from './jetstream-feed';
import { openJetStreamLinks, type JetStreamLinks } from './jetstream-links';
import type { StreamClient } from './stream-client';

/** What one client asks for: a concrete subject (expandStreamSubject), its JetStream stream, where to resume. */
export interface StreamSpec {
  subject: string;
  /** The JetStream stream that keeps the subject's events: events then carry their sequence and resume. */
  stream?: string;
  /** The last sequence the client has (`Last-Event-ID`, `?since=`): it gets what follows. Only with `stream`. */
  since?: number;
}

export interface EventSourcesOptions {
  nc: NatsConnection;
  logger: Logger;
  /**
   * How long one pull of a consumer lasts (ms). 5 s: with nats.js' 30 s, the clients of a feed whose consumer's node
   * was restarted waited about 30 s for their next event.
   */
  expiresMs?: number;
  /**
   * How often an idle consumer's server says it is there (ms, at most half of `expiresMs`); two missed make the feed
   * or replay make its consumer again (its NATS node lost, say). 1 s: nats.js' default, half the pull, let a live
   * client wait 5 to 7.5 s before the consumer was even remade, and over 10 s in all on a loaded machine.
   */
  heartbeatMs?: number;
  /**
   * The most live events held for one client while its replay runs (default 1,000); past it they are dropped and
   * replayed from the stream afterwards, so a slow replay costs bounded memory and still loses nothing.
   */
  holdMax?: number;
}

export interface EventSources {
  /**
   * Adds a client to the feed of its subject, starting the feed if it is the first. With `since`, what the client
   * missed is replayed first; the promise resolves once the client is live. Returns the function that removes it
   * (the feed stops with its last client). Rejects with 503 STORE_UNAVAILABLE when the stream cannot be read.
   */
  attach(spec: StreamSpec, client: StreamClient): Promise<() => void>;
  /** Feeds running: one per concrete subject (and stream), whatever the number of clients. */
  size(): number;
  /** Live events held for clients whose replay runs (at most `holdMax` per client). */
  held(): number;
  /** Stops every feed (shutdown); clients are ended by their owner (createStreamRegistry). */
  close(): Promise<void>;
}

/** How long consumers are not placed on a server the connection left: its lame duck mode lasts that long at most. */
const AVOID_LEFT_MS = 120_000;

function storeUnavailable(stream: string, cause: unknown): RestbusError {
  return new RestbusError('STORE_UNAVAILABLE', `the event stream ${stream} cannot be read just now`, {
    cause,
    headers: { 'retry-after': '5' },
  });
}

/** nats.js' status iterator and the moving connection's (@restbus/infra) both stop; `status()`'s type does not say. */
function canStop(value: object): value is { stop(): void } {
  return 'stop' in value && typeof value.stop === 'function';
}

/**
 * The feeds of a gateway's streams: one per concrete subject, shared by all its clients, fanned out in process
 * (1,000 clients on a subject are one subscription or one consumer, and each event is encoded once).
 */
class SharedFeeds implements EventSources {
  private readonly nc: NatsConnection;
  private readonly logger: Logger;
  private readonly pulls: PullTiming;
  private readonly holdMax: number;
  /** The feeds running, by stream and subject. */
  private readonly feeds = new Map<string, Feed>();
  private readonly statuses: AsyncIterable<Status>;
  /**
   * The server that last said it enters lame duck mode, and when: no consumer is placed there for a while. Told on
   * the connection still on it (a link moves away right after), whichever server the connection reconnected to.
   */
  private left: { name?: string; at: number } | undefined;
  /** Opened with the first JetStream feed. */
  private links: Promise<JetStreamLinks> | undefined;

  constructor(options: EventSourcesOptions) {
    this.nc = options.nc;
    this.logger = options.logger.child({ component: 'streams' });
    const expiresMs = options.expiresMs ?? 5_000;
    this.pulls = { expiresMs, heartbeatMs: Math.min(options.heartbeatMs ?? 1_000, expiresMs / 2) };
    this.holdMax = options.holdMax ?? 1_000;
    this.statuses = this.nc.status();
    void this.followStatuses().catch(() => undefined);
  }

  async attach(spec: StreamSpec, client: StreamClient): Promise<() => void> {
    const key = `${spec.stream ?? ''} ${spec.subject}`;
    const feed = this.feedFor(key, spec);
    const since = spec.stream === undefined ? undefined : spec.since;
    const member = new FeedMember(client, since);
    feed.fanOut.add(member);
    const leave = (): void => {
      if (member.gone) return;
      member.leave();
      feed.fanOut.remove(member);
      if (feed.fanOut.size === 0 && this.feeds.get(key) === feed) {
        this.feeds.delete(key);
        feed.stop();
      }
    };
    try {
      await feed.ready;
      if (since !== undefined) await feed.resume(member, since);
    } catch (err) {
      leave();
      throw spec.stream && !isRestbusError(err) ? storeUnavailable(spec.stream, err) : err;
    }
    return leave;
  }

  size(): number {
    return this.feeds.size;
  }

  held(): number {
    let count = 0;
    for (const feed of this.feeds.values()) count += feed.fanOut.countHeld();
    return count;
  }

  async close(): Promise<void> {
    if (canStop(this.statuses)) this.statuses.stop();
    for (const feed of this.feeds.values()) feed.stop();
    this.feeds.clear();
    await Promise.resolve();
  }

  private feedFor(key: string, spec: StreamSpec): Feed {
    let feed = this.feeds.get(key);
    if (!feed) {
      feed = spec.stream
        ? new JetStreamFeed(
            this.jetStream(),
            this.nc,
            { subject: spec.subject, stream: spec.stream },
            { logger: this.logger, pulls: this.pulls, holdMax: this.holdMax, avoid: () => this.leavingServer() },
          )
        : new CoreFeed(this.nc, spec.subject, this.logger);
      this.feeds.set(key, feed);
    }
    return feed;
  }

  private jetStream(): Promise<JetStreamLinks> {
    return (this.links ??= openJetStreamLinks(this.nc));
  }

  /** The server the connection left in lame duck mode, while consumers keep away from it. */
  private leavingServer(): string | undefined {
    const left = this.left;
    return left && Date.now() - left.at < AVOID_LEFT_MS ? left.name : undefined;
  }

  private async followStatuses(): Promise<void> {
    for await (const status of this.statuses) {
      if (status.type === Events.LDM) this.left = { name: this.nc.info?.server_name, at: Date.now() };
      // The server the link was on is gone, and may have held consumers: nats.js stops watching their heartbeats
      // until it has asked for their info, which for a consumer on that server fails after its request timeout, and
      // then never watches them again (a live client waited 5 to 11 s, until the node came back with the consumer
      // reset). Each feed and replay takes a new consumer at once, the old one going on until then.
      if (status.type === Events.Reconnect && this.feeds.size > 0) {
        this.logger.info({ feeds: this.feeds.size }, 'NATS link reconnected: stream feeds take new consumers');
        for (const feed of this.feeds.values()) feed.renew();
      }
    }
  }
}

export function createEventSources(options: EventSourcesOptions): EventSources {
  return new SharedFeeds(options);
}
