import {
  ConsumerEvents,
  Events,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
  type NatsConnection,
  type Subscription,
} from 'nats';
import { isRestbusError, onConnectionMove, RestbusError, type Logger } from '@restbus/infra';
import {
  isGone,
  makeConsumer,
  MAKE_TIMEOUT_MS,
  runInOrder,
  type ConsumerRun,
  type LostReason,
  type PullTiming,
} from './feed-consumer';
import type { StreamClient } from './stream-client';
import { readStreamInfo } from './read-stream-info';
import { createStreamEvent, type StreamEvent } from './stream-event';
import { subjectMatches } from './subject-matches';

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

interface Member {
  readonly client: StreamClient;
  /** The last sequence this client got: what the live feed and the replay both skip. */
  lastSeq: number;
  /** Live events held while the client's replay runs. */
  held?: StreamEvent[];
  /** Live events were dropped from `held` at its bound: the replay goes on to the stream's end again. */
  overflowed?: boolean;
  /** Stops the client's replay when it leaves in the middle of it. */
  stopReplay?: () => void;
  /** The client left: nothing more is replayed to it. */
  gone?: boolean;
}

interface Source {
  readonly members: Set<Member>;
  readonly ready: Promise<void>;
  /** Replays what a resuming member missed, then makes it live. */
  resume(member: Member, since: number): Promise<void>;
  /** Reads from new consumers, made from where the feed and each replay are (the connection was lost meanwhile). */
  renew(): void;
  stop(): void;
}

const MESSAGE = 'message';
/**
 * How long a feed's start or a replay may wait for JetStream (the stream's info, a consumer made) before the client
 * is told 503.
 */
const MAKE_WITHIN_MS = 20_000;
/** How long consumers are not placed on a server the connection left: its lame duck mode lasts that long at most. */
const AVOID_LEFT_MS = 120_000;
/** How soon a stream's identity is checked again when JetStream did not answer (an election under way, say). */
const CHECK_AGAIN_MS = 1000;

function resetEvent(body: Record<string, unknown>): StreamEvent {
  return createStreamEvent({ event: 'reset', data: JSON.stringify(body) });
}

/** Hands one event to one member, once: a sequence it already has is skipped; a reset starts the count again. */
function deliverTo(member: Member, event: StreamEvent): void {
  if (event.event === 'reset') member.lastSeq = 0;
  else if (event.seq !== undefined) {
    if (event.seq <= member.lastSeq) return;
    member.lastSeq = event.seq;
  }
  member.client.deliver(event);
}

function fanOut(members: Set<Member>, event: StreamEvent, holdMax: number): void {
  for (const member of members) {
    if (!member.held) deliverTo(member, event);
    else if (member.held.length < holdMax || event.seq === undefined) member.held.push(event);
    else {
      // The stream keeps it: the replay fetches it again, rather than this process keeping it for a slow client.
      member.held = member.held.filter((held) => held.seq === undefined);
      member.overflowed = true;
    }
  }
}

function storeUnavailable(stream: string, cause: unknown): RestbusError {
  return new RestbusError('STORE_UNAVAILABLE', `the event stream ${stream} cannot be read just now`, {
    cause,
    headers: { 'retry-after': '5' },
  });
}

/** A core NATS subscription: events as they come, without ids. */
function createCoreSource(nc: NatsConnection, subject: string, logger: Logger): Source {
  const members = new Set<Member>();
  const sub: Subscription = nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err) {
        logger.warn({ err, subject }, 'stream subscription failed');
        return;
      }
      // Only a resuming client (of a JetStream stream) holds events: here every client is live.
      fanOut(members, createStreamEvent({ event: MESSAGE, payload: msg.data }), Infinity);
    },
  });
  return {
    members,
    // Subscribed at the server before the client is told it is live.
    ready: nc.flush(),
    resume: () => Promise.resolve(),
    // nats.js subscribes again on the server it reconnects to.
    renew: () => undefined,
    stop: () => sub.unsubscribe(),
  };
}

interface JetStreamLinks {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Makes consumers: its requests time out soon, and are sent again (makeConsumer). */
  maker: JetStreamManager;
}

/**
 * One consumer for every client of a subject, from the stream's end when the first client came, read in order
 * (feed-consumer.ts): live events carry their stream sequence. A consumer that is lost (a gap, missed heartbeats,
 * gone) is made again from the last event the feed had, and the stream is checked against its creation time: a
 * stream deleted and recreated gives clients a `reset` and the new stream from its start (a consumer made from the
 * old sequence would silently skip). Its creation advisory checks too.
 */
function createJetStreamSource(
  links: Promise<JetStreamLinks>,
  nc: NatsConnection,
  spec: { subject: string; stream: string },
  options: { logger: Logger; pulls: PullTiming; holdMax: number; avoid: () => string | undefined },
): Source {
  const { subject, stream } = spec;
  const { logger, pulls, holdMax } = options;
  const members = new Set<Member>();
  let created = '';
  let lastSeq = 0;
  let generation = 0;
  let stopped = false;
  // The consumers being read: one, and its predecessor while a move makes the next one.
  const runs = new Set<ConsumerRun>();
  // Events held while the stream's identity is checked: they may come from a recreated stream.
  let suspect: StreamEvent[] | undefined;
  let checking: Promise<void> = Promise.resolve();
  // The replays running now, each by the function that cuts it short.
  const replays = new Set<() => void>();

  /** A consumer not made at once: said at debug level (it is made again; an election takes a few seconds). */
  const tellFailure =
    (purpose: string) =>
    (err: unknown, ms: number): void =>
      logger.debug({ err, stream, subject, purpose, ms, server: nc.getServer() }, 'stream consumer not made yet');

  const stopConsumer = (): void => {
    generation++;
    for (const run of runs) run.stop();
    runs.clear();
  };

  /**
   * Events of every consumer being read go through here: one a client already has is skipped. Each consumer
   * delivers in order from where it started, at or before the next one the feed needs, so what passes has no gap.
   */
  const onMessage = (m: JsMsg): void => {
    if (stopped) return;
    const event = createStreamEvent({ event: MESSAGE, seq: m.seq, payload: m.data });
    if (suspect) {
      suspect.push(event);
      return;
    }
    if (m.seq <= lastSeq) return;
    lastSeq = m.seq;
    fanOut(members, event, holdMax);
  };

  /**
   * Makes and reads a consumer from `from`, retried until made unless `withinMs` passes (a first client is told
   * 503). With `keep`, the consumers read now go on until the new one reads (a move: the old one may still deliver).
   */
  const startConsumer = async (from: number, how: { keep?: boolean; withinMs?: number } = {}): Promise<void> => {
    const serial = ++generation;
    const current = (): boolean => serial === generation && !stopped;
    if (!how.keep) {
      for (const run of runs) run.stop();
      runs.clear();
    }
    const { js, maker } = await links;
    const info = await makeConsumer(
      maker,
      { stream, subject, from },
      { wanted: current, withinMs: how.withinMs, onFailure: tellFailure('feed'), avoid: options.avoid },
    );
    if (!info || !current()) {
      if (info) void maker.consumers.delete(stream, info.name).catch(() => undefined);
      return;
    }
    let run: ConsumerRun | undefined;
    const onLost = (reason: LostReason): void => {
      if (run) runs.delete(run);
      if (!current()) return;
      logger.warn({ stream, subject, reason }, 'stream feed lost its consumer: it is made again');
      lost(reason);
    };
    try {
      run = await runInOrder(js, info, { ...pulls, onMessage, onLost });
    } catch (err) {
      if (!current()) return;
      logger.warn({ err, stream, subject }, 'stream feed could not be read: it is made again');
      setTimeout(() => current() && lost('ended'), 250);
      return;
    }
    if (!current()) {
      run.stop();
      return;
    }
    for (const old of runs) old.stop();
    runs.clear();
    runs.add(run);
  };

  /** A consumer was lost: the next one goes on from the last event the feed had, once the stream is checked. */
  const lost = (reason: LostReason): void => {
    // A gap or a consumer gone may be the stream deleted and made again: the events wait for the check.
    if (reason !== 'silent') {
      suspect ??= [];
      check();
    }
    void startConsumer(lastSeq + 1).catch((err: unknown) =>
      logger.warn({ err, stream, subject }, 'stream feed failed'),
    );
  };

  /** Compares the stream with the one the feed started on; says reset and starts over when it is another. */
  const checkOnce = async (): Promise<void> => {
    const { jsm } = await links;
    const info = await jsm.streams.info(stream).catch(() => undefined);
    if (stopped) return;
    if (!info) {
      // Deleted and not yet back, or JetStream not answering just now: looked at again soon (and at the stream's
      // creation advisory), the events held meanwhile.
      if (suspect) setTimeout(() => suspect && !stopped && check(), CHECK_AGAIN_MS);
      return;
    }
    const held = suspect;
    suspect = undefined;
    if (info.created === created && info.state.last_seq >= lastSeq) {
      for (const event of held ?? []) {
        if (event.seq !== undefined && event.seq <= lastSeq) continue;
        lastSeq = event.seq ?? lastSeq;
        fanOut(members, event, holdMax);
      }
      return;
    }
    logger.warn({ stream, subject }, 'stream recreated: clients get a reset');
    created = info.created;
    lastSeq = 0;
    stopConsumer();
    const from = Math.max(1, info.state.first_seq);
    fanOut(members, resetEvent({ reason: 'recreated', firstId: String(from) }), holdMax);
    void startConsumer(from).catch((err: unknown) => logger.warn({ err, stream, subject }, 'stream feed failed'));
  };
  const check = (): void => {
    checking = checking
      .then(checkOnce)
      .catch((err: unknown) => logger.warn({ err, stream, subject }, 'stream check failed'));
  };

  const advisory = nc.subscribe(`$JS.EVENT.ADVISORY.STREAM.CREATED.${stream}`, {
    callback: (err) => {
      if (!err) check();
    },
  });
  /**
   * A new consumer takes over from the last event the feed had, while the old one goes on delivering until it reads
   * (the stream's sequence drops what both deliver); replays cut here go on from where their client is (replay).
   */
  const renew = (): void => {
    for (const cut of replays) cut();
    if (stopped) return;
    void startConsumer(lastSeq + 1, { keep: true }).catch((err: unknown) =>
      logger.warn({ err, stream, subject }, 'stream feed failed'),
    );
  };
  // The link moved to another server (lame duck): the consumer's pulls and their replies stay on the connection
  // being drained.
  const stopFollowingMoves = onConnectionMove(nc, renew);
  // A stream deleted and not (yet) made again would be silence: the clients are told at once, and again when it is
  // back (`recreated`, with its first id).
  const deleted = nc.subscribe(`$JS.EVENT.ADVISORY.STREAM.DELETED.${stream}`, {
    callback: (err) => {
      // A user not allowed the advisories gets the refusal here: then only the consumer's checks notice.
      if (err) return;
      logger.warn({ stream, subject }, 'stream deleted: clients get a reset');
      fanOut(members, resetEvent({ reason: 'deleted' }), holdMax);
    },
  });

  const ready = (async () => {
    const { maker } = await links;
    const info = await readStreamInfo(maker, stream, { withinMs: MAKE_WITHIN_MS, wanted: () => !stopped });
    // A consumer filtered on a subject the stream does not keep is never made: nats.js would retry it forever.
    const kept = info.config.subjects ?? [];
    if (kept.length > 0 && !kept.some((filter) => subjectMatches(filter, subject))) {
      throw new RestbusError(
        'INTERNAL',
        `the JetStream stream ${stream} does not keep the subject ${subject} (it keeps ${kept.join(', ')}): ` +
          "the operation's x-restbus-stream and the stream disagree",
      );
    }
    created = info.created;
    lastSeq = info.state.last_seq;
    await startConsumer(info.state.last_seq + 1, { withinMs: MAKE_WITHIN_MS });
  })();

  /**
   * A client's own short-lived consumer from `from` up to `until`: what the live feed started after. False when it
   * ended before `until` (cut after a move, a gap, missed heartbeats: it goes on with a new one), true once through.
   */
  const replayOnce = async (member: Member, from: number, until: number): Promise<boolean> => {
    const { js, maker } = await links;
    const info = await makeConsumer(
      maker,
      { stream, subject, from },
      {
        wanted: () => !member.gone && !stopped,
        withinMs: MAKE_WITHIN_MS,
        onFailure: tellFailure('replay'),
        avoid: options.avoid,
      },
    );
    if (!info) return true;
    const own = js.consumers.getPullConsumerFor(info);
    let replayed: ConsumerMessages | undefined;
    try {
      if (info.num_pending === 0) return true;
      replayed = await own.consume({ expires: pulls.expiresMs, idle_heartbeat: pulls.heartbeatMs });
      const consumed = replayed;
      const cut = (): void => consumed.stop();
      replays.add(cut);
      member.stopReplay = cut;
      // A consumer that misses heartbeats or is gone is given up: the replay goes on with a new one.
      void (async () => {
        for await (const status of await consumed.status()) {
          if (status.type === ConsumerEvents.HeartbeatsMissed && Number(status.data) >= 2) cut();
          else if (isGone(status.type)) cut();
        }
      })().catch(() => undefined);
      let delivered = info.delivered.consumer_seq;
      for await (const m of consumed) {
        // One skipped (lost on its way): the next consumer starts from the last event the client got.
        if (m.info.deliverySequence !== ++delivered) return false;
        if (m.seq > until) return true;
        const drained = member.client.drained?.();
        if (drained) await drained;
        deliverTo(member, createStreamEvent({ event: MESSAGE, seq: m.seq, payload: m.data }));
        if (m.seq >= until || m.info.pending === 0) return true;
      }
      return false;
    } finally {
      replayed?.stop();
      for (const cut of replays) if (cut === member.stopReplay) replays.delete(cut);
      member.stopReplay = undefined;
      await own.delete().catch(() => undefined);
    }
  };
  /** Replays until through: a replay cut short goes on from the last event the client got, never leaving a gap. */
  const replay = async (member: Member, from: number, until: number): Promise<void> => {
    let next = from;
    while (!member.gone && !(await replayOnce(member, next, until))) {
      if (member.gone) return;
      const progressed = member.lastSeq + 1 > next;
      next = Math.max(next, member.lastSeq + 1);
      if (!progressed) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  };

  return {
    members,
    ready,
    renew,
    async resume(member, since) {
      try {
        // The member holds live events already: whatever the stream gets from now on reaches it one way or the other.
        const { maker } = await links;
        const wanted = (): boolean => !member.gone && !stopped;
        const { state } = await readStreamInfo(maker, stream, { withinMs: MAKE_WITHIN_MS, wanted });
        let from = since + 1;
        if (since > state.last_seq) {
          // Its ids are of a stream that is gone: everything of this one is new to it.
          from = Math.max(1, state.first_seq);
          deliverTo(member, resetEvent({ reason: 'recreated', firstId: String(from) }));
        } else if (from < state.first_seq) {
          from = state.first_seq;
          deliverTo(member, resetEvent({ reason: 'expired', firstId: String(from) }));
        }
        if (from <= state.last_seq) await replay(member, from, state.last_seq);
        // Live events were dropped meanwhile (too many to hold): replay again up to where the stream is now.
        while (member.overflowed) {
          member.overflowed = false;
          const now = (await readStreamInfo(maker, stream, { withinMs: MAKE_WITHIN_MS, wanted })).state;
          if (member.lastSeq < now.last_seq) await replay(member, member.lastSeq + 1, now.last_seq);
        }
      } finally {
        const held = member.held ?? [];
        member.held = undefined;
        for (const event of held) deliverTo(member, event);
      }
    },
    stop() {
      stopped = true;
      stopFollowingMoves();
      advisory.unsubscribe();
      deleted.unsubscribe();
      stopConsumer();
    },
  };
}

/**
 * The feeds of a gateway's streams: one per concrete subject, shared by all its clients, fanned out in process
 * (1,000 clients on a subject are one subscription or one consumer, and each event is encoded once).
 */
export function createEventSources(options: EventSourcesOptions): EventSources {
  const { nc } = options;
  const logger = options.logger.child({ component: 'streams' });
  const expiresMs = options.expiresMs ?? 5_000;
  const pulls: PullTiming = { expiresMs, heartbeatMs: Math.min(options.heartbeatMs ?? 1_000, expiresMs / 2) };
  const holdMax = options.holdMax ?? 1_000;
  const sources = new Map<string, Source>();
  // The server that last said it enters lame duck mode, and when: no consumer is placed there for a while. Told on
  // the connection still on it (a link moves away right after), whichever server the connection reconnected to.
  let left: { name?: string; at: number } | undefined;
  const statuses = nc.status();
  void (async () => {
    for await (const status of statuses) {
      if (status.type === Events.LDM) left = { name: nc.info?.server_name, at: Date.now() };
      // The server the link was on is gone, and may have held consumers: nats.js stops watching their heartbeats
      // until it has asked for their info, which for a consumer on that server fails after its request timeout, and
      // then never watches them again (a live client waited 5 to 11 s, until the node came back with the consumer
      // reset). Each feed and replay takes a new consumer at once, the old one going on until then.
      if (status.type === Events.Reconnect && sources.size > 0) {
        logger.info({ feeds: sources.size }, 'NATS link reconnected: stream feeds take new consumers');
        for (const source of sources.values()) source.renew();
      }
    }
  })().catch(() => undefined);
  const leaving = (): string | undefined => (left && Date.now() - left.at < AVOID_LEFT_MS ? left.name : undefined);
  let links: Promise<JetStreamLinks> | undefined;
  const jetStream = (): Promise<JetStreamLinks> =>
    (links ??= Promise.all([
      nc.jetstreamManager(),
      nc.jetstreamManager({ timeout: MAKE_TIMEOUT_MS, checkAPI: false }),
    ]).then(([jsm, maker]) => ({ jsm, maker, js: nc.jetstream() })));

  return {
    async attach(spec, client) {
      const key = `${spec.stream ?? ''} ${spec.subject}`;
      let source = sources.get(key);
      if (!source) {
        source = spec.stream
          ? createJetStreamSource(
              jetStream(),
              nc,
              { subject: spec.subject, stream: spec.stream },
              { logger, pulls, holdMax, avoid: leaving },
            )
          : createCoreSource(nc, spec.subject, logger);
        sources.set(key, source);
      }
      const resuming = spec.stream !== undefined && spec.since !== undefined;
      const member: Member = { client, lastSeq: resuming ? (spec.since ?? 0) : 0, held: resuming ? [] : undefined };
      const current = source;
      current.members.add(member);
      let left = false;
      const leave = (): void => {
        if (left) return;
        left = true;
        member.gone = true;
        member.stopReplay?.();
        current.members.delete(member);
        if (current.members.size === 0 && sources.get(key) === current) {
          sources.delete(key);
          current.stop();
        }
      };
      try {
        await current.ready;
        if (resuming) await current.resume(member, spec.since ?? 0);
      } catch (err) {
        leave();
        throw spec.stream && !isRestbusError(err) ? storeUnavailable(spec.stream, err) : err;
      }
      return leave;
    },
    size: () => sources.size,
    held() {
      let count = 0;
      for (const source of sources.values()) for (const member of source.members) count += member.held?.length ?? 0;
      return count;
    },
    async close() {
      (statuses as { stop?: () => void }).stop?.();
      for (const source of sources.values()) source.stop();
      sources.clear();
      await Promise.resolve();
    },
  };
}
