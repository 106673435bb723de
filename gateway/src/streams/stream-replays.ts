import { ConsumerEvents, type ConsumerMessages, type StreamInfo } from 'nats';
import { isGone, makeConsumer, type PullTiming } from './feed-consumer';
import { MAKE_WITHIN_MS, MESSAGE } from './feed';
import type { FeedMember } from './feed-member';
import type { JetStreamLinks } from './jetstream-links';
import { readStreamInfo } from './read-stream-info';
import { createResetEvent, createStreamEvent } from './stream-event';

export interface StreamReplaysOptions {
  stream: string;
  subject: string;
  pulls: PullTiming;
  /** A server no consumer is placed on just now (the one the connection left). */
  avoid: () => string | undefined;
  /** Told of each consumer not made at once. */
  onFailure: (err: unknown, ms: number) => void;
}

/**
 * The replays of one JetStream feed: each resuming client gets what it missed from a short-lived consumer of its own,
 * up to where the live feed started, then goes live.
 */
export class StreamReplays {
  /** The replays running now, each by the function that cuts it short. */
  private readonly running = new Set<() => void>();
  /** The feed stopped: no new consumer is made for a replay. */
  private stopped = false;

  constructor(
    private readonly links: Promise<JetStreamLinks>,
    private readonly options: StreamReplaysOptions,
  ) {}

  /** Replays what `member` missed after `since`, then makes it live (its held events delivered), whatever happens. */
  async resume(member: FeedMember, since: number): Promise<void> {
    try {
      // The member holds live events already: whatever the stream gets from now on reaches it one way or the other.
      const { state } = await this.readStream(member);
      let from = since + 1;
      if (since > state.last_seq) {
        // Its ids are of a stream that is gone: everything of this one is new to it.
        from = Math.max(1, state.first_seq);
        member.deliver(createResetEvent({ reason: 'recreated', firstId: String(from) }));
      } else if (from < state.first_seq) {
        from = state.first_seq;
        member.deliver(createResetEvent({ reason: 'expired', firstId: String(from) }));
      }
      if (from <= state.last_seq) await this.replay(member, from, state.last_seq);
      // Live events were dropped meanwhile (too many to hold): replay again up to where the stream is now.
      while (member.takeOverflow()) {
        const now = (await this.readStream(member)).state;
        if (member.lastSeq < now.last_seq) await this.replay(member, member.lastSeq + 1, now.last_seq);
      }
    } finally {
      member.goLive();
    }
  }

  /** Cuts every replay running: each goes on with a new consumer from where its client is (a move). */
  cutAll(): void {
    for (const cut of this.running) cut();
  }

  stop(): void {
    this.stopped = true;
  }

  private readStream(member: FeedMember): Promise<StreamInfo> {
    return this.links.then(({ maker }) =>
      readStreamInfo(maker, this.options.stream, {
        withinMs: MAKE_WITHIN_MS,
        wanted: () => !member.gone && !this.stopped,
      }),
    );
  }

  /** Replays until through: a replay cut short goes on from the last event the client got, never leaving a gap. */
  private async replay(member: FeedMember, from: number, until: number): Promise<void> {
    let next = from;
    while (!member.gone && !(await this.replayOnce(member, next, until))) {
      if (member.gone) return;
      const progressed = member.lastSeq + 1 > next;
      next = Math.max(next, member.lastSeq + 1);
      if (!progressed) await new Promise((resolve) => setTimeout(resolve, 200));
    }
  }

  /**
   * A client's own short-lived consumer from `from` up to `until`: what the live feed started after. False when it
   * ended before `until` (cut after a move, a gap, missed heartbeats: it goes on with a new one), true once through.
   */
  private async replayOnce(member: FeedMember, from: number, until: number): Promise<boolean> {
    const { stream, subject, pulls } = this.options;
    const { js, maker } = await this.links;
    const info = await makeConsumer(
      maker,
      { stream, subject, from },
      {
        wanted: () => !member.gone && !this.stopped,
        withinMs: MAKE_WITHIN_MS,
        onFailure: this.options.onFailure,
        avoid: this.options.avoid,
      },
    );
    if (!info) return true;
    const own = js.consumers.getPullConsumerFor(info);
    let replayed: ConsumerMessages | undefined;
    let cut: (() => void) | undefined;
    try {
      if (info.num_pending === 0) return true;
      replayed = await own.consume({ expires: pulls.expiresMs, idle_heartbeat: pulls.heartbeatMs });
      const consumed = replayed;
      cut = () => consumed.stop();
      this.running.add(cut);
      member.replayRuns(cut);
      this.cutWhenUnwell(consumed, cut);
      let delivered = info.delivered.consumer_seq;
      for await (const m of consumed) {
        // One skipped (lost on its way): the next consumer starts from the last event the client got.
        if (m.info.deliverySequence !== ++delivered) return false;
        if (m.seq > until) return true;
        const drained = member.client.drained?.();
        if (drained) await drained;
        member.deliver(createStreamEvent({ event: MESSAGE, seq: m.seq, payload: m.data }));
        if (m.seq >= until || m.info.pending === 0) return true;
      }
      return false;
    } finally {
      replayed?.stop();
      if (cut) this.running.delete(cut);
      member.replayEnded();
      await own.delete().catch(() => undefined);
    }
  }

  /** A consumer that misses heartbeats or is gone is given up: the replay goes on with a new one. */
  private cutWhenUnwell(consumed: ConsumerMessages, cut: () => void): void {
    void (async () => {
      for await (const status of await consumed.status()) {
        if (status.type === ConsumerEvents.HeartbeatsMissed && Number(status.data) >= 2) cut();
        else if (isGone(status.type)) cut();
      }
    })().catch(() => undefined);
  }
}
