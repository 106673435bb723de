import type { JsMsg, NatsConnection, StreamInfo, Subscription } from 'nats';
import { onConnectionMove, RestbusError, type Logger } from '@restbus/infra';
import { FanOut } from './fan-out';
import { MAKE_WITHIN_MS, MESSAGE, type Feed } from './feed';
import type { LostReason, PullTiming } from './feed-consumer';
import type { FeedMember } from './feed-member';
import type { JetStreamLinks } from './jetstream-links';
import { LiveConsumers } from './live-consumers';
import { readStreamInfo } from './read-stream-info';
import { createResetEvent, createStreamEvent, type StreamEvent } from './stream-event';
import { StreamReplays } from './stream-replays';
import { subjectMatches } from './subject-matches';

/** How soon a stream's identity is checked again when JetStream did not answer (an election under way, say). */
const CHECK_AGAIN_MS = 1000;

export interface JetStreamFeedOptions {
  logger: Logger;
  pulls: PullTiming;
  /** The most live events held for one resuming client. */
  holdMax: number;
  /** A server no consumer is placed on just now (the one the connection left). */
  avoid: () => string | undefined;
}

/**
 * One consumer for every client of a subject, from the stream's end when the first client came, read in order
 * (feed-consumer.ts): live events carry their stream sequence. A consumer that is lost (a gap, missed heartbeats,
 * gone) is made again from the last event the feed had, and the stream is checked against its creation time: a
 * stream deleted and recreated gives clients a `reset` and the new stream from its start (a consumer made from the
 * old sequence would silently skip). Its creation advisory checks too.
 */
export class JetStreamFeed implements Feed {
  readonly fanOut: FanOut;
  readonly ready: Promise<void>;
  private readonly subject: string;
  private readonly stream: string;
  private readonly logger: Logger;
  /** The live consumer, made again when lost. */
  private readonly consumers: LiveConsumers;
  private readonly replays: StreamReplays;
  /** The stream's creation time, as the feed knows it: another one is the stream deleted and made again. */
  private created = '';
  /** The last sequence the feed passed on. */
  private lastSeq = 0;
  private stopped = false;
  /** Events held while the stream's identity is checked: they may come from a recreated stream. */
  private suspect: StreamEvent[] | undefined;
  /** The checks of the stream's identity, one after the other. */
  private checking: Promise<void> = Promise.resolve();
  private readonly createdAdvisory: Subscription;
  private readonly deletedAdvisory: Subscription;
  private readonly stopFollowingMoves: () => void;

  constructor(
    private readonly links: Promise<JetStreamLinks>,
    private readonly nc: NatsConnection,
    spec: { subject: string; stream: string },
    options: JetStreamFeedOptions,
  ) {
    this.subject = spec.subject;
    this.stream = spec.stream;
    this.logger = options.logger;
    this.fanOut = new FanOut(options.holdMax);
    this.consumers = new LiveConsumers(links, {
      ...spec,
      pulls: options.pulls,
      logger: options.logger,
      avoid: options.avoid,
      onFailure: this.tellFailure('feed'),
      onMessage: (m) => this.take(m),
      onLost: (reason) => this.lost(reason),
    });
    this.replays = new StreamReplays(links, {
      ...spec,
      pulls: options.pulls,
      avoid: options.avoid,
      onFailure: this.tellFailure('replay'),
    });
    this.createdAdvisory = nc.subscribe(`$JS.EVENT.ADVISORY.STREAM.CREATED.${this.stream}`, {
      callback: (err) => {
        if (!err) this.check();
      },
    });
    // The link moved to another server (lame duck): the consumer's pulls and their replies stay on the connection
    // being drained.
    this.stopFollowingMoves = onConnectionMove(nc, () => this.renew());
    // A stream deleted and not (yet) made again would be silence: the clients are told at once, and again when it is
    // back (`recreated`, with its first id).
    this.deletedAdvisory = nc.subscribe(`$JS.EVENT.ADVISORY.STREAM.DELETED.${this.stream}`, {
      callback: (err) => {
        // A user not allowed the advisories gets the refusal here: then only the consumer's checks notice.
        if (err) return;
        this.logger.warn({ stream: this.stream, subject: this.subject }, 'stream deleted: clients get a reset');
        this.fanOut.send(createResetEvent({ reason: 'deleted' }));
      },
    });
    this.ready = this.start();
  }

  resume(member: FeedMember, since: number): Promise<void> {
    return this.replays.resume(member, since);
  }

  /**
   * A new consumer takes over from the last event the feed had, while the old one goes on delivering until it reads
   * (the stream's sequence drops what both deliver); replays cut here go on from where their client is (replay).
   */
  renew(): void {
    this.replays.cutAll();
    if (this.stopped) return;
    this.consumers.startInBackground(this.lastSeq + 1, { keep: true });
  }

  stop(): void {
    this.stopped = true;
    this.replays.stop();
    this.stopFollowingMoves();
    this.createdAdvisory.unsubscribe();
    this.deletedAdvisory.unsubscribe();
    this.consumers.stop();
  }

  private async start(): Promise<void> {
    const { maker } = await this.links;
    const info = await readStreamInfo(maker, this.stream, { withinMs: MAKE_WITHIN_MS, wanted: () => !this.stopped });
    // A consumer filtered on a subject the stream does not keep is never made: nats.js would retry it forever.
    const kept = info.config.subjects ?? [];
    if (kept.length > 0 && !kept.some((filter) => subjectMatches(filter, this.subject))) {
      throw new RestbusError(
        'INTERNAL',
        `the JetStream stream ${this.stream} does not keep the subject ${this.subject} (it keeps ${kept.join(', ')}): ` +
          "the operation's x-restbus-stream and the stream disagree",
      );
    }
    this.created = info.created;
    this.lastSeq = info.state.last_seq;
    await this.consumers.start(info.state.last_seq + 1, { withinMs: MAKE_WITHIN_MS });
  }

  /** A consumer not made at once: said at debug level (it is made again; an election takes a few seconds). */
  private tellFailure(purpose: string): (err: unknown, ms: number) => void {
    return (err, ms) =>
      this.logger.debug(
        { err, stream: this.stream, subject: this.subject, purpose, ms, server: this.nc.getServer() },
        'stream consumer not made yet',
      );
  }

  /**
   * Events of every consumer being read go through here: one a client already has is skipped. Each consumer
   * delivers in order from where it started, at or before the next one the feed needs, so what passes has no gap.
   */
  private take(m: JsMsg): void {
    if (this.stopped) return;
    const event = createStreamEvent({ event: MESSAGE, seq: m.seq, payload: m.data });
    if (this.suspect) {
      this.suspect.push(event);
      return;
    }
    if (m.seq <= this.lastSeq) return;
    this.lastSeq = m.seq;
    this.fanOut.send(event);
  }

  /** A consumer was lost: the next one goes on from the last event the feed had, once the stream is checked. */
  private lost(reason: LostReason): void {
    // A gap or a consumer gone may be the stream deleted and made again: the events wait for the check.
    if (reason !== 'silent') {
      this.suspect ??= [];
      this.check();
    }
    this.consumers.startInBackground(this.lastSeq + 1);
  }

  private check(): void {
    this.checking = this.checking
      .then(() => this.checkOnce())
      .catch((err: unknown) =>
        this.logger.warn({ err, stream: this.stream, subject: this.subject }, 'stream check failed'),
      );
  }

  /** Compares the stream with the one the feed started on; says reset and starts over when it is another. */
  private async checkOnce(): Promise<void> {
    const { jsm } = await this.links;
    const info = await jsm.streams.info(this.stream).catch(() => undefined);
    if (this.stopped) return;
    if (!info) {
      // Deleted and not yet back, or JetStream not answering just now: looked at again soon (and at the stream's
      // creation advisory), the events held meanwhile.
      if (this.suspect) setTimeout(() => this.suspect && !this.stopped && this.check(), CHECK_AGAIN_MS);
      return;
    }
    const held = this.suspect;
    this.suspect = undefined;
    if (info.created === this.created && info.state.last_seq >= this.lastSeq) this.pass(held ?? []);
    else this.startOver(info);
  }

  /** The stream is the one the feed started on: the events held while it was checked go on. */
  private pass(held: StreamEvent[]): void {
    for (const event of held) {
      if (event.seq !== undefined && event.seq <= this.lastSeq) continue;
      this.lastSeq = event.seq ?? this.lastSeq;
      this.fanOut.send(event);
    }
  }

  /** The stream was made again: clients are told, and get it from its first event. */
  private startOver(info: StreamInfo): void {
    this.logger.warn({ stream: this.stream, subject: this.subject }, 'stream recreated: clients get a reset');
    this.created = info.created;
    this.lastSeq = 0;
    this.consumers.stopAll();
    const from = Math.max(1, info.state.first_seq);
    this.fanOut.send(createResetEvent({ reason: 'recreated', firstId: String(from) }));
    this.consumers.startInBackground(from);
  }
}
