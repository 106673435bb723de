import type { JsMsg } from 'nats';
import type { Logger } from '@restbus/infra';
import { makeConsumer, runInOrder, type ConsumerRun, type LostReason, type PullTiming } from './feed-consumer';
import type { JetStreamLinks } from './jetstream-links';

export interface LiveConsumersOptions {
  stream: string;
  subject: string;
  pulls: PullTiming;
  logger: Logger;
  /** A server no consumer is placed on just now (the one the connection left). */
  avoid: () => string | undefined;
  /** Told of each consumer not made at once. */
  onFailure: (err: unknown, ms: number) => void;
  /** Every message of every consumer being read, in the order each delivers. */
  onMessage: (m: JsMsg) => void;
  /** The consumer being read stopped delivering as it should: another one is wanted (start). */
  onLost: (reason: LostReason) => void;
}

/**
 * The consumers a JetStream feed reads: one, and its predecessor while a move makes the next one. Only the consumer
 * started last is wanted: one an earlier start was still making is deleted once made, and its losses are not told.
 */
export class LiveConsumers {
  /** Counts the starts: a start that is not the last one gives up. */
  private generation = 0;
  private stopped = false;
  private readonly runs = new Set<ConsumerRun>();

  constructor(
    private readonly links: Promise<JetStreamLinks>,
    private readonly options: LiveConsumersOptions,
  ) {}

  /**
   * Makes and reads a consumer from `from`, retried until made unless `withinMs` passes (a first client is told
   * 503). With `keep`, the consumers read now go on until the new one reads (a move: the old one may still deliver).
   */
  async start(from: number, how: { keep?: boolean; withinMs?: number } = {}): Promise<void> {
    const { stream, subject, logger } = this.options;
    const serial = ++this.generation;
    const current = (): boolean => serial === this.generation && !this.stopped;
    if (!how.keep) this.stopRuns();
    const { js, maker } = await this.links;
    const info = await makeConsumer(
      maker,
      { stream, subject, from },
      { wanted: current, withinMs: how.withinMs, onFailure: this.options.onFailure, avoid: this.options.avoid },
    );
    if (!info || !current()) {
      if (info) void maker.consumers.delete(stream, info.name).catch(() => undefined);
      return;
    }
    let run: ConsumerRun | undefined;
    const onLost = (reason: LostReason): void => {
      if (run) this.runs.delete(run);
      if (!current()) return;
      logger.warn({ stream, subject, reason }, 'stream feed lost its consumer: it is made again');
      this.options.onLost(reason);
    };
    try {
      run = await runInOrder(js, info, { ...this.options.pulls, onMessage: this.options.onMessage, onLost });
    } catch (err) {
      if (!current()) return;
      logger.warn({ err, stream, subject }, 'stream feed could not be read: it is made again');
      setTimeout(() => current() && this.options.onLost('ended'), 250);
      return;
    }
    if (!current()) {
      run.stop();
      return;
    }
    this.stopRuns();
    this.runs.add(run);
  }

  /** start(), its failure logged rather than thrown. */
  startInBackground(from: number, how: { keep?: boolean } = {}): void {
    const { stream, subject, logger } = this.options;
    void this.start(from, how).catch((err: unknown) => logger.warn({ err, stream, subject }, 'stream feed failed'));
  }

  /** Stops the consumers being read and any start under way. */
  stopAll(): void {
    this.generation++;
    this.stopRuns();
  }

  /** The feed stopped: nothing is started any more. */
  stop(): void {
    this.stopped = true;
    this.stopAll();
  }

  private stopRuns(): void {
    for (const run of this.runs) run.stop();
    this.runs.clear();
  }
}
