import {
  AckPolicy,
  ConsumerEvents,
  DeliverPolicy,
  nanos,
  nuid,
  type ConsumerInfo,
  type ConsumerMessages,
  type JetStreamClient,
  type JetStreamManager,
  type JsMsg,
} from 'nats';

/**
 * How long one request that makes a consumer is given before another is made (under another name): a consumer
 * placed on a server in lame duck mode is not answered for, however long one waits.
 */
export const MAKE_TIMEOUT_MS = 1000;
/** The wait between two attempts to make a consumer after an error. */
const MAKE_RETRY_MS = 250;
/** A consumer whose owner went away without deleting it (its reply lost, say) is removed by the server after this. */
const INACTIVE_MS = 60_000;

export interface ConsumerSpec {
  stream: string;
  subject: string;
  /** The first stream sequence it delivers. */
  from: number;
}

export interface MakeOptions {
  /** Asked before each attempt: false stops trying (resolves undefined). */
  wanted: () => boolean;
  /** Gives up after this long (ms) with the last error; tried for as long as wanted when absent. */
  withinMs?: number;
  /** Told of each failed attempt (its error, and how long it took in ms) before the next one. */
  onFailure?: (err: unknown, ms: number) => void;
  /** A server a consumer must not be placed on (the one the connection left, in lame duck mode). */
  avoid?: () => string | undefined;
}

/**
 * Makes an ephemeral consumer of `subject` from `spec.from`, unacknowledged and in memory as nats.js' ordered
 * consumer makes them, and tries again (under a new name) until it is made. `jsm` should time out after
 * MAKE_TIMEOUT_MS.
 *
 * Not nats.js' ordered consumer: it waits between its own attempts as long as a pull lasts (5 s here) or, when
 * asked for its info before consume(), 15 to 45 s. After a lame-duck move, a consumer JetStream places on the
 * server being left is never answered for, or answered and then silent: a replay resumed 40 s later or never, a
 * live client waited up to 19 s. Such a consumer is given up at once and another one made.
 */
export async function makeConsumer(
  jsm: JetStreamManager,
  spec: ConsumerSpec,
  options: MakeOptions,
): Promise<ConsumerInfo | undefined> {
  const started = Date.now();
  for (;;) {
    if (!options.wanted()) return undefined;
    const attempt = Date.now();
    // A new name each time: the one not answered for may be placed on a server that never answers.
    const name = nuid.next();
    try {
      const info = await jsm.consumers.add(spec.stream, {
        name,
        filter_subject: spec.subject,
        deliver_policy: DeliverPolicy.StartSequence,
        opt_start_seq: Math.max(1, spec.from),
        ack_policy: AckPolicy.None,
        max_deliver: 1,
        mem_storage: true,
        num_replicas: 1,
        inactive_threshold: nanos(INACTIVE_MS),
      });
      const avoid = options.avoid?.();
      if (!avoid || info.cluster?.leader !== avoid) return info;
      throw new Error(`the consumer was placed on ${avoid}, which is leaving`);
    } catch (err) {
      // Made after all, later, or placed where it must not be: not left behind for its inactivity to remove.
      void jsm.consumers.delete(spec.stream, name).catch(() => undefined);
      options.onFailure?.(err, Date.now() - attempt);
      if (options.withinMs !== undefined && Date.now() - started >= options.withinMs) throw err;
      if (Date.now() - attempt < MAKE_TIMEOUT_MS) await new Promise((resolve) => setTimeout(resolve, MAKE_RETRY_MS));
    }
  }
}

/** Why a consumer's messages stopped coming as they should: its owner makes another from where it is. */
export type LostReason = 'gap' | 'silent' | 'gone' | 'ended';

/** How long one pull lasts and how often an idle consumer's server says it is there (ms). */
export interface PullTiming {
  expiresMs: number;
  heartbeatMs: number;
}

export interface ConsumerRun {
  /** Stops the pulls and deletes the consumer. */
  stop(): void;
}

/**
 * Consumes what `info` names, each message once and in order: a message that is not the next one (a delivery
 * sequence skipped), two missed idle heartbeats, the consumer or its stream gone, or the pulls ended (the
 * connection they are on drained) stop it and call `onLost` once, as nats.js' ordered consumer would start over.
 */
export async function runInOrder(
  js: JetStreamClient,
  info: ConsumerInfo,
  options: PullTiming & { onMessage: (m: JsMsg) => void; onLost: (reason: LostReason) => void },
): Promise<ConsumerRun> {
  const consumer = js.consumers.getPullConsumerFor(info);
  let delivered = info.delivered.consumer_seq;
  let done = false;
  // Set once consume() returns; a message cannot come before.
  const pulls: { messages?: ConsumerMessages } = {};
  const stop = (): void => {
    if (done) return;
    done = true;
    pulls.messages?.stop();
    void consumer.delete().catch(() => undefined);
  };
  const lose = (reason: LostReason): void => {
    if (done) return;
    stop();
    options.onLost(reason);
  };
  const messages = await consumer.consume({
    expires: options.expiresMs,
    idle_heartbeat: options.heartbeatMs,
    callback: (m) => {
      if (done) return;
      if (m.info.deliverySequence !== delivered + 1) {
        lose('gap');
        return;
      }
      delivered++;
      options.onMessage(m);
    },
  });
  pulls.messages = messages;
  void messages.closed().then(
    () => lose('ended'),
    () => lose('ended'),
  );
  void (async () => {
    for await (const status of await messages.status()) {
      if (done) break;
      if (status.type === ConsumerEvents.HeartbeatsMissed && Number(status.data) >= 2) lose('silent');
      else if (isGone(status.type)) lose('gone');
    }
  })().catch(() => undefined);
  return { stop };
}

/** Statuses that say the consumer (or its stream) is not there any more. */
export function isGone(type: string): boolean {
  return (
    type === ConsumerEvents.ConsumerDeleted ||
    type === ConsumerEvents.ConsumerNotFound ||
    type === ConsumerEvents.StreamNotFound ||
    type === ConsumerEvents.NoResponders
  );
}
