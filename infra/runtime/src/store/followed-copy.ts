import { JSONCodec, type JetStreamManager, type KV, type NatsConnection, type StreamState } from 'nats';
import type { Logger } from 'pino';
import { onConnectionMove } from '../nats/create-moving-connection';
import { openBucket, STORE_REQUEST_MS } from './open-bucket';
import { shareRequest } from './share-request';
import {
  isStreamMissing,
  isUnavailable,
  retryWhileUnavailable,
  storeBudget,
  toStoreError,
  within,
} from './store-errors';
import { startStreamCopy, type Stored, type StreamCopy } from './stream-copy';

// How long a read waits for the stream to confirm its last sequence before it answers from the copy, marked stale.
const CONFIRM_MS = 750;
// How long the copy may lag behind a confirmed sequence before its watch is taken for dead and started afresh.
export const STALL_MS = 300;
const OPEN_WAIT_MS = 30_000;

/**
 * Opens the bucket and loads a first copy of it. At start JetStream may still be electing its leaders (a cluster
 * coming up): opening waits for it a while.
 */
export async function startFollowedCopy<T>(
  nc: NatsConnection,
  bucket: string,
  settings: { replicas: number | undefined; logger: Logger },
): Promise<FollowedCopy<T>> {
  const { replicas, logger } = settings;
  const kv = await retryWhileUnavailable(
    bucket,
    () => openBucket(nc, bucket, { replicas, logger }),
    undefined,
    OPEN_WAIT_MS,
  );
  const jsm = await nc.jetstreamManager({ timeout: STORE_REQUEST_MS });
  // Reads share these requests, and a reader waits for one sent after it asked: one lost in an election must
  // not hold the readers after it for longer than they would wait anyway.
  const quick = await nc.jetstreamManager({ timeout: CONFIRM_MS });
  const copy = await retryWhileUnavailable(bucket, () => startBucketCopy<T>(kv, bucket, jsm), undefined, OPEN_WAIT_MS);
  return new FollowedCopy<T>({ nc, bucket, replicas, logger, kv, jsm, quick, copy });
}

/** Starts a copy of the bucket that `kv` opened, which waits for the stream's last sequence first. */
function startBucketCopy<T>(kv: KV, bucket: string, jsm: JetStreamManager): Promise<StreamCopy<T>> {
  const codec = JSONCodec<Stored<T>>();
  return startStreamCopy<T>({
    kv,
    bucket,
    decode: (data) => codec.decode(data),
    lastSequence: async () => (await jsm.streams.info(`KV_${bucket}`)).state.last_seq,
    initialMs: STORE_REQUEST_MS,
  });
}

/**
 * A service's copy of its bucket, kept following the stream: a copy that stops following (a lost consumer, a NATS
 * restart, a purge, a deleted stream, a move to another server) is started afresh while the old one answers.
 */
export class FollowedCopy<T> {
  private readonly nc: NatsConnection;
  private readonly bucket: string;
  private readonly replicas: number | undefined;
  private readonly logger: Logger;
  private readonly jsm: JetStreamManager;
  /** Asks the stream for its state, shared by the reads that ask while a request is out (shareRequest). */
  private readonly confirmState: () => Promise<StreamState>;
  private readonly stopFollowing: () => void;
  private kvNow: KV;
  private copyNow: StreamCopy<T>;
  /** The restart under way, which every restart asked for meanwhile joins. */
  private restarting: Promise<void> | undefined;
  // Why the restart under way was asked for, by each that joined it.
  private restartReasons: string[] = [];
  private stopped = false;
  /** Set when the stream failed to answer a confirmation, until it answers one. */
  private unconfirmed = false;

  constructor(opened: {
    nc: NatsConnection;
    bucket: string;
    replicas: number | undefined;
    logger: Logger;
    kv: KV;
    /** For requests that may take as long as any store request. */
    jsm: JetStreamManager;
    /** For the confirmations that reads wait for, which give up sooner. */
    quick: JetStreamManager;
    copy: StreamCopy<T>;
  }) {
    const { nc, bucket, logger, quick } = opened;
    this.nc = nc;
    this.bucket = bucket;
    this.replicas = opened.replicas;
    this.logger = logger;
    this.jsm = opened.jsm;
    this.confirmState = shareRequest(async () => (await quick.streams.info(`KV_${bucket}`)).state);
    this.kvNow = opened.kv;
    this.copyNow = opened.copy;
    // The copy's watch stays on the connection it was started on, which is drained after a move: a fresh copy on the
    // new one takes over once loaded, while the old one answers (and follows) until then.
    this.stopFollowing = onConnectionMove(nc, () =>
      this.restartAfterMove().catch((err: unknown) =>
        logger.warn({ err }, `could not start a copy of ${bucket} on the new connection; a read will try again`),
      ),
    );
  }

  /** The bucket, opened again when its stream was deleted behind the service's back. */
  get kv(): KV {
    return this.kvNow;
  }

  /** The copy reads are answered from. */
  get copy(): StreamCopy<T> {
    return this.copyNow;
  }

  /** Brings the copy up to the stream's last sequence; resolves true when it could not, and the copy may be stale. */
  async confirm(): Promise<boolean> {
    const started = performance.now();
    const left = (): number => storeBudget() - (performance.now() - started);
    // Once the stream has failed to answer, the reads after it do not each wait the full time in turn: they are
    // answered from the copy at once while one request at a time asks again, until the stream answers.
    if (this.unconfirmed) {
      void this.confirmState().then(
        () => (this.unconfirmed = false),
        () => undefined,
      );
      return true;
    }
    let state: StreamState;
    try {
      state = await within(this.confirmState(), Math.min(CONFIRM_MS, left()));
    } catch (err) {
      if (isUnavailable(err)) this.unconfirmed = true;
      if (isStreamMissing(err)) {
        await this.recreateIfMissing(err).catch((cause: unknown) => {
          throw toStoreError(cause, this.bucket);
        });
        return false;
      }
      if (isUnavailable(err)) return true;
      throw toStoreError(err, this.bucket);
    }
    try {
      if (this.copyNow.lostMessages(state)) {
        await within(this.restart('messages were purged'), Math.min(CONFIRM_MS, left()));
      }
      if (await this.copyNow.reaches(state.last_seq, Math.min(STALL_MS, left()))) return false;
      // A fresh watch may take long to start just after an election: the read does not wait for it longer than
      // for the stream, and answers from the copy it has meanwhile (the restart goes on).
      const why = `the copy stopped at ${this.copyNow.seen} of ${state.last_seq}`;
      await within(this.restart(why), Math.min(CONFIRM_MS, left()));
    } catch (err) {
      if (!isUnavailable(err)) throw toStoreError(err, this.bucket);
    }
    return this.copyNow.seen < state.last_seq;
  }

  /** A stream deleted behind the service's back is made again (empty), with the replicas asked for. */
  async recreateIfMissing(err: unknown): Promise<void> {
    if (!isStreamMissing(err)) return;
    this.logger.warn(`the stream of ${this.bucket} was deleted; creating it again`);
    this.kvNow = await openBucket(this.nc, this.bucket, { replicas: this.replicas, logger: this.logger });
    await this.restart('the stream was deleted');
  }

  stop(): void {
    this.stopped = true;
    this.stopFollowing();
    this.copyNow.stop();
  }

  /** Replaces the copy with a fresh one; the old one answers until the new one has loaded. */
  private restart(why: string): Promise<void> {
    if (!this.restartReasons.includes(why)) this.restartReasons.push(why);
    this.restarting ??= this.replaceCopy();
    return this.restarting;
  }

  private async replaceCopy(): Promise<void> {
    try {
      const fresh = await startBucketCopy<T>(this.kvNow, this.bucket, this.jsm);
      if (this.stopped) return fresh.stop();
      const old = this.copyNow;
      this.copyNow = fresh;
      old.stop();
      const reasons = this.restartReasons.join('; ');
      this.logger.info({ why: reasons, sequence: fresh.seen }, `started a fresh copy of ${this.bucket} (${reasons})`);
    } finally {
      this.restarting = undefined;
      this.restartReasons = [];
    }
  }

  /**
   * A fresh copy on the connection the link moved to. A restart already under way (a read found the copy behind a
   * moment before the move) may have started its watch on the old connection, which is drained: this one starts
   * after it, or joins one started since.
   */
  private async restartAfterMove(): Promise<void> {
    await this.restarting?.catch(() => undefined);
    await this.restart('the connection moved to another server');
  }
}
