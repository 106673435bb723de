import {
  Empty,
  headers,
  JSONCodec,
  type JetStreamClient,
  type JetStreamManager,
  type KV,
  type KvEntry,
  type NatsConnection,
  type StreamState,
} from 'nats';
import pino, { type Logger } from 'pino';
import { onConnectionMove } from '../nats/create-moving-connection';
import { cutPage, type Collection, type Page, type PageRequest, type Read } from './collection';
import { nameWrite } from './name-write';
import { openBucket, STORE_REQUEST_MS } from './open-bucket';
import { startReadHorizon, type ReadHorizon } from './read-horizon';
import { assertValidId } from './record-id';
import { shareRequest } from './share-request';
import {
  isStreamMissing,
  isUnavailable,
  mayHaveBeenApplied,
  retryWhileUnavailable,
  storeBudget,
  toStoreError,
  within,
} from './store-errors';
import { startStreamCopy, type Stored, type StreamCopy } from './stream-copy';
import { readErrorMessage } from '../errors/read-caught-error';

// Only a create can conflict, and each conflict means the key now exists; the bound only stops a livelock.
const MAX_ATTEMPTS = 10;
// How long a read waits for the stream to confirm its last sequence before it answers from the copy, marked stale.
const CONFIRM_MS = 750;
// How long the copy may lag behind a confirmed sequence before its watch is taken for dead and started afresh.
const STALL_MS = 300;
const OPEN_WAIT_MS = 30_000;

// KV keys allow only [-/_=.a-zA-Z0-9]; ids are any text, so they are stored base64url-encoded.
// Checked here too, where ids become subjects, so that no service can send an oversized subject by mistake.
const toKey = (id: string): string => Buffer.from(assertValidId(id), 'utf8').toString('base64url');

function isLive(entry: KvEntry | null): entry is KvEntry {
  return entry !== null && entry.operation === 'PUT';
}

const isConflict = (err: unknown): boolean => /wrong last sequence|key exists/i.test(readErrorMessage(err));

/** How a read makes sure the copy has every acknowledged write: see person-service/README.md. */
export type ReadConsistency = 'confirmed' | 'announced';

export interface KvCollectionOptions {
  /** Replicas of the bucket; by default min(3, JetStream peers). */
  replicas?: number;
  /** By default `confirmed`: every read asks the stream (shared by the reads that arrive together). */
  reads?: ReadConsistency;
  logger?: Logger;
}

/**
 * A {@link Collection} in a JetStream key-value bucket (file storage, one value per key, replicated on a
 * cluster): an acknowledged write survives restarts of the service and of NATS, and the loss of a node.
 *
 * Reads (lists and single values) are answered from the service's own copy of the bucket, fed by a watch, after
 * the stream confirms its last sequence and the copy has reached it: a write acknowledged anywhere before the read
 * began is in the answer. When the stream cannot confirm in time (a leader election, NATS out of reach), the copy
 * answers as it is, marked stale. A copy that stops following (a lost consumer, a NATS restart, a purge, a
 * deleted stream) is started afresh while the old one keeps answering. With `reads: 'announced'` a read asks the
 * stream only once a second (and after a delete or a reconnect); otherwise it waits for the copy to reach the
 * writes the replicas announced, which costs no round trip.
 *
 * Writes are retried while the store is only unavailable, for as long as the handler's deadline allows. Creation
 * uses the bucket's compare-and-set, so of two replicas creating one id exactly one wins; a replacement is a plain
 * put. Insertion order is the revision that created a key; a replacement carries that revision forward. Every
 * write carries an id that its attempts and the copies of its call share (nameWrite): JetStream stores it once.
 */
export async function openKvCollection<T>(
  nc: NatsConnection,
  bucket: string,
  options: KvCollectionOptions = {},
): Promise<Collection<T>> {
  const logger = (options.logger ?? pino({ level: 'silent' })).child({ component: 'store', bucket });
  // At start JetStream may still be electing its leaders (a cluster coming up): opening waits for it a while.
  const kv = await retryWhileUnavailable(
    bucket,
    () => openBucket(nc, bucket, { replicas: options.replicas, logger }),
    undefined,
    OPEN_WAIT_MS,
  );
  const jsm = await nc.jetstreamManager({ timeout: STORE_REQUEST_MS });
  // Reads share these requests, and a reader waits for one sent after it asked: one lost in an election must
  // not hold the readers after it for longer than they would wait anyway.
  const quick = await nc.jetstreamManager({ timeout: CONFIRM_MS });
  const copy = await retryWhileUnavailable(bucket, () => startBucketCopy<T>(kv, bucket, jsm), undefined, OPEN_WAIT_MS);
  return new KvCollection<T>({ nc, bucket, options, logger, kv, jsm, quick, copy });
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

/** What opening a collection waited for, and what it was opened with. */
interface OpenedBucket<T> {
  nc: NatsConnection;
  bucket: string;
  options: KvCollectionOptions;
  logger: Logger;
  kv: KV;
  /** For requests that may take as long as any store request. */
  jsm: JetStreamManager;
  /** For the confirmations that reads wait for, which give up sooner. */
  quick: JetStreamManager;
  copy: StreamCopy<T>;
}

/** See openKvCollection. */
class KvCollection<T> implements Collection<T> {
  private readonly nc: NatsConnection;
  private readonly bucket: string;
  private readonly replicas: number | undefined;
  private readonly logger: Logger;
  private readonly codec = JSONCodec<Stored<T>>();
  private readonly js: JetStreamClient;
  private readonly jsm: JetStreamManager;
  /** Asks the stream for its state, shared by the reads that ask while a request is out (shareRequest). */
  private readonly confirmState: () => Promise<StreamState>;
  /** Only with `reads: 'announced'`. */
  private readonly horizon: ReadHorizon | undefined;
  private readonly stopFollowing: () => void;
  /** Opened again when the stream was deleted behind the service's back. */
  private kv: KV;
  /** What reads are answered from; replaced by a fresh one once that has loaded. */
  private copy: StreamCopy<T>;
  /** The restart of the copy under way, which every restart asked for meanwhile joins. */
  private restarting: Promise<void> | undefined;
  // Why the restart under way was asked for, by each that joined it.
  private restartReasons: string[] = [];
  private closed = false;
  /** Set when the stream failed to answer a confirmation, until it answers one. */
  private unconfirmed = false;

  constructor(opened: OpenedBucket<T>) {
    const { nc, bucket, quick } = opened;
    this.nc = nc;
    this.bucket = bucket;
    this.replicas = opened.options.replicas;
    this.logger = opened.logger;
    this.js = nc.jetstream({ timeout: STORE_REQUEST_MS });
    this.jsm = opened.jsm;
    this.confirmState = shareRequest(async () => (await quick.streams.info(`KV_${bucket}`)).state);
    this.kv = opened.kv;
    this.copy = opened.copy;
    this.horizon = opened.options.reads === 'announced' ? startReadHorizon(nc, bucket) : undefined;
    // The copy's watch stays on the connection it was started on, which is drained after a move: a fresh copy on the
    // new one takes over once loaded, while the old one answers (and follows) until then.
    this.stopFollowing = onConnectionMove(nc, () =>
      this.restartAfterMove().catch((err: unknown) =>
        this.logger.warn({ err }, `could not start a copy of ${bucket} on the new connection; a read will try again`),
      ),
    );
  }

  async list(page?: PageRequest): Promise<Page<T>> {
    const stale = await this.prepareRead();
    return { ...cutPage(this.copy.sorted(), page), stale };
  }

  async get(id: string): Promise<Read<T | undefined>> {
    const key = toKey(id);
    let stale = await this.prepareRead();
    let entry = this.copy.get(key);
    // An id no announced write names may have been written a moment ago through another replica whose
    // announcement is still on its way (it crosses another route than the client's next call): "absent" is said
    // only once the stream has confirmed. A slow-routes test read 404 right after its PUT was acknowledged.
    if (!entry && !stale && this.horizon) {
      stale = await this.prepareRead(true);
      entry = this.copy.get(key);
    }
    if (entry || !stale) return { value: entry?.value, stale };
    // A copy that may be behind says "absent" only after the stream's replicas were asked (a direct get, which
    // any replica answers, also while a leader is being elected): a write acknowledged there is not a 404. When
    // they cannot be asked by the deadline the read fails STORE_UNAVAILABLE: not knowing is not "absent".
    const found = await retryWhileUnavailable(this.bucket, () => this.kv.get(key));
    return { value: isLive(found) ? this.codec.decode(found.value).value : undefined, stale: true };
  }

  async create(id: string, value: T): Promise<boolean> {
    const key = toKey(id);
    const writeId = nameWrite('PUT', key);
    return this.retryWrite((uncertain) => this.storeValue(key, value, false, uncertain, writeId));
  }

  async put(id: string, value: T): Promise<void> {
    const key = toKey(id);
    const writeId = nameWrite('PUT', key);
    await this.retryWrite((uncertain) => this.storeValue(key, value, true, uncertain, writeId));
  }

  async remove(id: string): Promise<boolean> {
    const key = toKey(id);
    const writeId = nameWrite('DEL', key);
    return this.retryWrite(async (uncertain) => {
      // Gone already: by an earlier attempt of this very call whose answer was lost, or it never was.
      if (!isLive(await this.kv.get(key))) {
        if (uncertain) this.horizon?.announce(undefined);
        return uncertain;
      }
      await this.writeEntry(key, writeId);
      this.horizon?.announce(undefined);
      return true;
    });
  }

  async clear(): Promise<void> {
    // Per-key delete markers (not a stream purge), so that every replica's copy sees the keys go.
    if (await this.confirmCopy()) {
      throw toStoreError(new Error('temporarily unavailable: the stream did not confirm its keys'), this.bucket);
    }
    try {
      await Promise.all(
        this.copy.keys().map((key) => {
          const writeId = nameWrite('DEL', key);
          return this.retryWrite(() => this.writeEntry(key, writeId));
        }),
      );
    } finally {
      this.horizon?.announce(undefined);
    }
  }

  async close(): Promise<void> {
    this.closed = true;
    this.stopFollowing();
    this.horizon?.stop();
    this.copy.stop();
  }

  /**
   * Makes the copy ready for a read; resolves true when it could not, and the copy may be stale. `confirm` asks the
   * stream even when the announced writes are all in the copy.
   */
  private async prepareRead(confirm = false): Promise<boolean> {
    const horizon = this.horizon;
    const announcedIn =
      horizon &&
      !confirm &&
      !horizon.mustConfirm() &&
      (await this.copy.reaches(horizon.known, Math.min(STALL_MS, storeBudget())));
    if (announcedIn) return false;
    const askedAt = performance.now();
    const stale = await this.confirmCopy();
    if (!stale) horizon?.confirmed(this.copy.seen, askedAt);
    return stale;
  }

  /** Brings the copy up to the stream's last sequence; resolves true when it could not, and the copy may be stale. */
  private async confirmCopy(): Promise<boolean> {
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
      if (this.copy.lostMessages(state))
        await within(this.restartCopy('messages were purged'), Math.min(CONFIRM_MS, left()));
      if (await this.copy.reaches(state.last_seq, Math.min(STALL_MS, left()))) return false;
      // A fresh watch may take long to start just after an election: the read does not wait for it longer than
      // for the stream, and answers from the copy it has meanwhile (the restart goes on).
      const why = `the copy stopped at ${this.copy.seen} of ${state.last_seq}`;
      await within(this.restartCopy(why), Math.min(CONFIRM_MS, left()));
    } catch (err) {
      if (!isUnavailable(err)) throw toStoreError(err, this.bucket);
    }
    return this.copy.seen < state.last_seq;
  }

  /** Replaces the copy with a fresh one; the old one answers until the new one has loaded. */
  private restartCopy(why: string): Promise<void> {
    if (!this.restartReasons.includes(why)) this.restartReasons.push(why);
    this.restarting ??= this.replaceCopy();
    return this.restarting;
  }

  private async replaceCopy(): Promise<void> {
    try {
      const fresh = await startBucketCopy<T>(this.kv, this.bucket, this.jsm);
      if (this.closed) return fresh.stop();
      const old = this.copy;
      this.copy = fresh;
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
    await this.restartCopy('the connection moved to another server');
  }

  /** A stream deleted behind the service's back is made again (empty), with the replicas asked for. */
  private async recreateIfMissing(err: unknown): Promise<void> {
    if (!isStreamMissing(err)) return;
    this.logger.warn(`the stream of ${this.bucket} was deleted; creating it again`);
    this.kv = await openBucket(this.nc, this.bucket, { replicas: this.replicas, logger: this.logger });
    await this.restartCopy('the stream was deleted');
  }

  /** Runs a write until it is through or the deadline; `uncertain` says whether a failed attempt may have landed. */
  private retryWrite<R>(attempt: (uncertain: boolean) => Promise<R>): Promise<R> {
    let uncertain = false;
    return retryWhileUnavailable(
      this.bucket,
      async () => {
        try {
          return await attempt(uncertain);
        } catch (err) {
          if (mayHaveBeenApplied(err)) uncertain = true;
          throw err;
        }
      },
      (err) => this.recreateIfMissing(err),
    );
  }

  /** One attempt of a create (`mayReplace` false) or a put; resolves false when a create found the id taken. */
  private async storeValue(
    key: string,
    value: T,
    mayReplace: boolean,
    uncertain: boolean,
    writeId: string,
  ): Promise<boolean> {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const existing = await this.kv.get(key);
      const revision = existing?.revision ?? 0;
      if (!isLive(existing)) {
        try {
          // Only if the key is still absent (or deleted at that revision), as the bucket's create.
          const sequence = await this.writeEntry(key, writeId, this.codec.encode({ value }), revision);
          this.horizon?.announce(sequence);
          return true;
        } catch (err) {
          // Another writer created it first: read again (and replace it, or report it taken).
          if (!isConflict(err)) throw err;
          continue;
        }
      }
      // What is there may be this very create, stored by an attempt whose answer was lost.
      if (!mayReplace) {
        const mine = uncertain && JSON.stringify(this.codec.decode(existing.value).value) === JSON.stringify(value);
        if (mine) this.horizon?.announce(undefined);
        return mine;
      }
      // A replacement is last-writer-wins, as any PUT; it only carries the key's place in the order forward.
      const order = this.codec.decode(existing.value).order ?? existing.revision;
      const sequence = await this.writeEntry(key, writeId, this.codec.encode({ value, order }));
      this.horizon?.announce(sequence);
      return true;
    }
    throw new Error(`could not write ${this.bucket}: too many concurrent writers on one key`);
  }

  /**
   * Writes an entry as the bucket's own put and delete do, with the write's id; `after` is the revision the key must
   * still have (0: none), as the bucket's create asks. Resolves with its sequence, a duplicate's the first one's.
   */
  private async writeEntry(key: string, writeId: string, data?: Uint8Array, after?: number): Promise<number> {
    // Headers of its own for each write: nats.js adds the write's id to them, and uses them again when it retries.
    const marker = headers();
    if (data === undefined) marker.set('KV-Operation', 'DEL');
    const ack = await this.js.publish(`$KV.${this.bucket}.${key}`, data ?? Empty, {
      msgID: writeId,
      headers: marker,
      ...(after === undefined ? {} : { expect: { lastSubjectSequence: after } }),
    });
    return ack.seq;
  }
}
