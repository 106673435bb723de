import { Empty, headers, JSONCodec, type JetStreamClient, type KvEntry, type NatsConnection } from 'nats';
import pino, { type Logger } from 'pino';
import { cutPage, type Collection, type Page, type PageRequest, type Read } from './collection';
import { startFollowedCopy, STALL_MS, type FollowedCopy } from './followed-copy';
import { nameWrite } from './name-write';
import { STORE_REQUEST_MS } from './open-bucket';
import { startReadHorizon, type ReadHorizon } from './read-horizon';
import { assertValidId } from './record-id';
import { mayHaveBeenApplied, retryWhileUnavailable, storeBudget, toStoreError } from './store-errors';
import type { Stored } from './stream-copy';
import { readErrorMessage } from '../errors/read-caught-error';

// Only a create can conflict, and each conflict means the key now exists; the bound only stops a livelock.
const MAX_ATTEMPTS = 10;

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
  const followed = await startFollowedCopy<T>(nc, bucket, { replicas: options.replicas, logger });
  return new KvCollection<T>(nc, bucket, followed, options.reads);
}

/** See openKvCollection. */
class KvCollection<T> implements Collection<T> {
  private readonly codec = JSONCodec<Stored<T>>();
  private readonly js: JetStreamClient;
  /** Only with `reads: 'announced'`. */
  private readonly horizon: ReadHorizon | undefined;

  constructor(
    nc: NatsConnection,
    private readonly bucket: string,
    private readonly followed: FollowedCopy<T>,
    reads: ReadConsistency | undefined,
  ) {
    this.js = nc.jetstream({ timeout: STORE_REQUEST_MS });
    this.horizon = reads === 'announced' ? startReadHorizon(nc, bucket) : undefined;
  }

  async list(page?: PageRequest): Promise<Page<T>> {
    const stale = await this.prepareRead();
    return { ...cutPage(this.followed.copy.sorted(), page), stale };
  }

  async get(id: string): Promise<Read<T | undefined>> {
    const key = toKey(id);
    let stale = await this.prepareRead();
    let entry = this.followed.copy.get(key);
    // An id no announced write names may have been written a moment ago through another replica whose
    // announcement is still on its way (it crosses another route than the client's next call): "absent" is said
    // only once the stream has confirmed. A slow-routes test read 404 right after its PUT was acknowledged.
    if (!entry && !stale && this.horizon) {
      stale = await this.prepareRead(true);
      entry = this.followed.copy.get(key);
    }
    if (entry || !stale) return { value: entry?.value, stale };
    // A copy that may be behind says "absent" only after the stream's replicas were asked (a direct get, which
    // any replica answers, also while a leader is being elected): a write acknowledged there is not a 404. When
    // they cannot be asked by the deadline the read fails STORE_UNAVAILABLE: not knowing is not "absent".
    const found = await retryWhileUnavailable(this.bucket, () => this.followed.kv.get(key));
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
      if (!isLive(await this.followed.kv.get(key))) {
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
    if (await this.followed.confirm()) {
      throw toStoreError(new Error('temporarily unavailable: the stream did not confirm its keys'), this.bucket);
    }
    try {
      await Promise.all(
        this.followed.copy.keys().map((key) => {
          const writeId = nameWrite('DEL', key);
          return this.retryWrite(() => this.writeEntry(key, writeId));
        }),
      );
    } finally {
      this.horizon?.announce(undefined);
    }
  }

  async close(): Promise<void> {
    this.horizon?.stop();
    this.followed.stop();
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
      (await this.followed.copy.reaches(horizon.known, Math.min(STALL_MS, storeBudget())));
    if (announcedIn) return false;
    const askedAt = performance.now();
    const stale = await this.followed.confirm();
    if (!stale) horizon?.confirmed(this.followed.copy.seen, askedAt);
    return stale;
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
      (err) => this.followed.recreateIfMissing(err),
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
      const existing = await this.followed.kv.get(key);
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
