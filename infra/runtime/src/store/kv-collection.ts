import { createHash, randomUUID } from 'node:crypto';
import { Empty, headers, JSONCodec, type KvEntry, type NatsConnection, type StreamState } from 'nats';
import pino, { type Logger } from 'pino';
import { nextWriteOfCall } from '../executive/handler-scope';
import { onConnectionMove } from '../nats/create-moving-connection';
import { cutPage, type Collection } from './collection';
import { openBucket, STORE_REQUEST_MS } from './open-bucket';
import { startReadHorizon } from './read-horizon';
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

/**
 * The id JetStream knows a write by (Nats-Msg-Id: the stream keeps the ids of its last 2 minutes and stores a
 * write whose id it has seen as a duplicate, not again). The same for every attempt of one write and, inside a
 * handler, for every copy of its call (nextWriteOfCall): a copy of a PUT that a replica cut off from NATS retries
 * once it is back, after another copy was answered and the client wrote again, must not put the old value back.
 * Hashed, so that the bucket's headers do not show the call's reply subject.
 */
function nameWrite(operation: 'PUT' | 'DEL', key: string): string {
  const ofCall = nextWriteOfCall();
  if (ofCall === undefined) return randomUUID();
  return createHash('sha256').update(`${ofCall}\n${operation}\n${key}`).digest('base64url');
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
  const stream = `KV_${bucket}`;
  const codec = JSONCodec<Stored<T>>();
  const js = nc.jetstream({ timeout: STORE_REQUEST_MS });
  /**
   * Writes an entry as the bucket's own put and delete do, with the write's id; `after` is the revision the key must
   * still have (0: none), as the bucket's create asks. Resolves with its sequence, a duplicate's the first one's.
   */
  async function writeEntry(key: string, writeId: string, data?: Uint8Array, after?: number): Promise<number> {
    // Headers of its own for each write: nats.js adds the write's id to them, and uses them again when it retries.
    const marker = headers();
    if (data === undefined) marker.set('KV-Operation', 'DEL');
    const ack = await js.publish(`$KV.${bucket}.${key}`, data ?? Empty, {
      msgID: writeId,
      headers: marker,
      ...(after === undefined ? {} : { expect: { lastSubjectSequence: after } }),
    });
    return ack.seq;
  }
  // At start JetStream may still be electing its leaders (a cluster coming up): opening waits for it a while.
  let kv = await retryWhileUnavailable(
    bucket,
    () => openBucket(nc, bucket, { replicas: options.replicas, logger }),
    undefined,
    OPEN_WAIT_MS,
  );
  const jsm = await nc.jetstreamManager({ timeout: STORE_REQUEST_MS });
  const askState = async (): Promise<StreamState> => (await jsm.streams.info(stream)).state;
  // Reads share these requests, and a reader waits for one sent after it asked: one lost in an election must
  // not hold the readers after it for longer than they would wait anyway.
  const quick = await nc.jetstreamManager({ timeout: CONFIRM_MS });
  const confirmState = shareRequest(async () => (await quick.streams.info(stream)).state);

  const startCopy = (): Promise<StreamCopy<T>> =>
    startStreamCopy<T>({
      kv,
      bucket,
      decode: (data) => codec.decode(data),
      lastSequence: async () => (await askState()).last_seq,
      initialMs: STORE_REQUEST_MS,
    });
  let copy = await retryWhileUnavailable(bucket, startCopy, undefined, OPEN_WAIT_MS);
  let restarting: Promise<void> | undefined;
  // Why the restart under way was asked for, by each that joined it.
  let restartReasons: string[] = [];
  let closed = false;
  let unconfirmed = false;
  const horizon = options.reads === 'announced' ? startReadHorizon(nc, bucket) : undefined;
  // The copy's watch stays on the connection it was started on, which is drained after a move: a fresh copy on the
  // new one takes over once loaded, while the old one answers (and follows) until then.
  const stopFollowing = onConnectionMove(nc, () =>
    restartAfterMove().catch((err: unknown) =>
      logger.warn({ err }, `could not start a copy of ${bucket} on the new connection; a read will try again`),
    ),
  );

  /** Replaces the copy with a fresh one; the old one answers until the new one has loaded. */
  function restartCopy(why: string): Promise<void> {
    if (!restartReasons.includes(why)) restartReasons.push(why);
    restarting ??= (async () => {
      try {
        const fresh = await startCopy();
        if (closed) return fresh.stop();
        const old = copy;
        copy = fresh;
        old.stop();
        const reasons = restartReasons.join('; ');
        logger.info({ why: reasons, sequence: fresh.seen }, `started a fresh copy of ${bucket} (${reasons})`);
      } finally {
        restarting = undefined;
        restartReasons = [];
      }
    })();
    return restarting;
  }

  /**
   * A fresh copy on the connection the link moved to. A restart already under way (a read found the copy behind a
   * moment before the move) may have started its watch on the old connection, which is drained: this one starts
   * after it, or joins one started since.
   */
  async function restartAfterMove(): Promise<void> {
    await restarting?.catch(() => undefined);
    await restartCopy('the connection moved to another server');
  }

  /** A stream deleted behind the service's back is made again (empty), with the replicas asked for. */
  async function recreateIfMissing(err: unknown): Promise<void> {
    if (!isStreamMissing(err)) return;
    logger.warn(`the stream of ${bucket} was deleted; creating it again`);
    kv = await openBucket(nc, bucket, { replicas: options.replicas, logger });
    await restartCopy('the stream was deleted');
  }

  /** Brings the copy up to the stream's last sequence; resolves true when it could not, and the copy may be stale. */
  async function confirmCopy(): Promise<boolean> {
    const started = performance.now();
    const left = (): number => storeBudget() - (performance.now() - started);
    // Once the stream has failed to answer, the reads after it do not each wait the full time in turn: they are
    // answered from the copy at once while one request at a time asks again, until the stream answers.
    if (unconfirmed) {
      void confirmState().then(
        () => (unconfirmed = false),
        () => undefined,
      );
      return true;
    }
    let state: StreamState;
    try {
      state = await within(confirmState(), Math.min(CONFIRM_MS, left()));
    } catch (err) {
      if (isUnavailable(err)) unconfirmed = true;
      if (isStreamMissing(err)) {
        await recreateIfMissing(err).catch((cause: unknown) => {
          throw toStoreError(cause, bucket);
        });
        return false;
      }
      if (isUnavailable(err)) return true;
      throw toStoreError(err, bucket);
    }
    try {
      if (copy.lostMessages(state)) await within(restartCopy('messages were purged'), Math.min(CONFIRM_MS, left()));
      if (await copy.reaches(state.last_seq, Math.min(STALL_MS, left()))) return false;
      // A fresh watch may take long to start just after an election: the read does not wait for it longer than
      // for the stream, and answers from the copy it has meanwhile (the restart goes on).
      await within(restartCopy(`the copy stopped at ${copy.seen} of ${state.last_seq}`), Math.min(CONFIRM_MS, left()));
    } catch (err) {
      if (!isUnavailable(err)) throw toStoreError(err, bucket);
    }
    return copy.seen < state.last_seq;
  }

  /**
   * Makes the copy ready for a read; resolves true when it could not, and the copy may be stale. `confirm` asks the
   * stream even when the announced writes are all in the copy.
   */
  async function prepareRead(confirm = false): Promise<boolean> {
    const announcedIn =
      horizon &&
      !confirm &&
      !horizon.mustConfirm() &&
      (await copy.reaches(horizon.known, Math.min(STALL_MS, storeBudget())));
    if (announcedIn) return false;
    const askedAt = performance.now();
    const stale = await confirmCopy();
    if (!stale) horizon?.confirmed(copy.seen, askedAt);
    return stale;
  }

  /** Runs a write until it is through or the deadline; `uncertain` says whether a failed attempt may have landed. */
  function write<R>(attempt: (uncertain: boolean) => Promise<R>): Promise<R> {
    let uncertain = false;
    return retryWhileUnavailable(
      bucket,
      async () => {
        try {
          return await attempt(uncertain);
        } catch (err) {
          if (mayHaveBeenApplied(err)) uncertain = true;
          throw err;
        }
      },
      recreateIfMissing,
    );
  }

  async function store(key: string, value: T, mayReplace: boolean, uncertain: boolean, writeId: string) {
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const existing = await kv.get(key);
      const revision = existing?.revision ?? 0;
      if (!isLive(existing)) {
        try {
          // Only if the key is still absent (or deleted at that revision), as the bucket's create.
          const sequence = await writeEntry(key, writeId, codec.encode({ value }), revision);
          horizon?.announce(sequence);
          return true;
        } catch (err) {
          // Another writer created it first: read again (and replace it, or report it taken).
          if (!isConflict(err)) throw err;
          continue;
        }
      }
      // What is there may be this very create, stored by an attempt whose answer was lost.
      if (!mayReplace) {
        const mine = uncertain && JSON.stringify(codec.decode(existing.value).value) === JSON.stringify(value);
        if (mine) horizon?.announce(undefined);
        return mine;
      }
      // A replacement is last-writer-wins, as any PUT; it only carries the key's place in the order forward.
      const order = codec.decode(existing.value).order ?? existing.revision;
      const sequence = await writeEntry(key, writeId, codec.encode({ value, order }));
      horizon?.announce(sequence);
      return true;
    }
    throw new Error(`could not write ${bucket}: too many concurrent writers on one key`);
  }

  return {
    async list(page) {
      const stale = await prepareRead();
      return { ...cutPage(copy.sorted(), page), stale };
    },
    async get(id) {
      const key = toKey(id);
      let stale = await prepareRead();
      let entry = copy.get(key);
      // An id no announced write names may have been written a moment ago through another replica whose
      // announcement is still on its way (it crosses another route than the client's next call): "absent" is said
      // only once the stream has confirmed. A slow-routes test read 404 right after its PUT was acknowledged.
      if (!entry && !stale && horizon) {
        stale = await prepareRead(true);
        entry = copy.get(key);
      }
      if (entry || !stale) return { value: entry?.value, stale };
      // A copy that may be behind says "absent" only after the stream's replicas were asked (a direct get, which
      // any replica answers, also while a leader is being elected): a write acknowledged there is not a 404. When
      // they cannot be asked by the deadline the read fails STORE_UNAVAILABLE: not knowing is not "absent".
      const found = await retryWhileUnavailable(bucket, () => kv.get(key));
      return { value: isLive(found) ? codec.decode(found.value).value : undefined, stale: true };
    },
    async create(id, value) {
      const key = toKey(id);
      const writeId = nameWrite('PUT', key);
      return write((uncertain) => store(key, value, false, uncertain, writeId));
    },
    async put(id, value) {
      const key = toKey(id);
      const writeId = nameWrite('PUT', key);
      await write((uncertain) => store(key, value, true, uncertain, writeId));
    },
    async remove(id) {
      const key = toKey(id);
      const writeId = nameWrite('DEL', key);
      return write(async (uncertain) => {
        // Gone already: by an earlier attempt of this very call whose answer was lost, or it never was.
        if (!isLive(await kv.get(key))) {
          if (uncertain) horizon?.announce(undefined);
          return uncertain;
        }
        await writeEntry(key, writeId);
        horizon?.announce(undefined);
        return true;
      });
    },
    async clear() {
      // Per-key delete markers (not a stream purge), so that every replica's copy sees the keys go.
      if (await confirmCopy()) {
        throw toStoreError(new Error('temporarily unavailable: the stream did not confirm its keys'), bucket);
      }
      try {
        await Promise.all(
          copy.keys().map((key) => {
            const writeId = nameWrite('DEL', key);
            return write(() => writeEntry(key, writeId));
          }),
        );
      } finally {
        horizon?.announce(undefined);
      }
    },
    async close() {
      closed = true;
      stopFollowing();
      horizon?.stop();
      copy.stop();
    },
  };
}
