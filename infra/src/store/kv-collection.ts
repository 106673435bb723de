import { JSONCodec, type KV, type KvEntry, type NatsConnection, type QueuedIterator, type StreamState } from 'nats';
import type { Collection } from './collection';
import { RestbusError } from '../errors/restbus-error';
import { assertValidId } from './record-id';

/** What is stored per key: the value, and once it has been replaced, the revision that created it. */
interface Stored<T> {
  value: T;
  order?: number;
}

// Only a create can conflict, and each conflict means the key now exists; the bound only stops a livelock.
const MAX_ATTEMPTS = 10;
const CATCH_UP_MS = 1000;

// KV keys allow only [-/_=.a-zA-Z0-9]; ids are any text, so they are stored base64url-encoded.
// Checked here too, where ids become subjects, so that no service can send an oversized subject by mistake.
const toKey = (id: string): string => Buffer.from(assertValidId(id), 'utf8').toString('base64url');

// How nats.js and JetStream say "not now": no connection, no JetStream leader or peers, no answer in time.
const UNAVAILABLE_CODES = new Set(['TIMEOUT', '503', 'CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'DISCONNECT']);
const UNAVAILABLE_MESSAGE = /timeout|no responders|temporarily unavailable|insufficient resources|not connected/i;

/**
 * A failure of the store as the client should hear it: one that will pass (NATS restarting, a JetStream leader
 * being elected) is `STORE_UNAVAILABLE` (503 with Retry-After), anything else stays what it is (500).
 */
function toStoreError(err: unknown, bucket: string): unknown {
  if (err instanceof RestbusError) return err;
  const { code, message } = err as { code?: unknown; message?: unknown };
  if (UNAVAILABLE_CODES.has(String(code)) || UNAVAILABLE_MESSAGE.test(String(message))) {
    return new RestbusError('STORE_UNAVAILABLE', `the store (${bucket}) is not available just now; retry shortly`, {
      cause: err,
    });
  }
  return err;
}

async function guarded<R>(bucket: string, operation: () => Promise<R>): Promise<R> {
  try {
    return await operation();
  } catch (err) {
    throw toStoreError(err, bucket);
  }
}

function isLive(entry: KvEntry | null): entry is KvEntry {
  return entry !== null && entry.operation === 'PUT';
}

/**
 * A {@link Collection} in a JetStream key-value bucket (file storage, one value per key): an acknowledged write
 * survives restarts of the service and of NATS, and every replica sees it. Creation uses the bucket's
 * compare-and-set (`create`), so of two replicas creating one id exactly one wins; a replacement is a plain put.
 * Insertion order is the revision that created a key; a replacement carries that revision forward.
 */
export async function openKvCollection<T>(nc: NatsConnection, bucket: string): Promise<Collection<T>> {
  const kv: KV = await nc.jetstream().views.kv(bucket, { history: 1 });
  const jsm = await nc.jetstreamManager();
  const codec = JSONCodec<Stored<T>>();

  // Every replica keeps a copy of the bucket, fed by a watch (initial values, then every change), so that a list
  // costs one request instead of one per key. Before answering from it, the copy catches up with the stream's
  // last sequence at that moment: a write acknowledged anywhere before the list began is in it.
  const copy = new Map<string, { stored: Stored<T>; revision: number }>();
  let seen = 0;
  const waiters: Array<{ sequence: number; resolve: () => void }> = [];
  let watch: QueuedIterator<KvEntry> = await follow();

  async function follow(): Promise<QueuedIterator<KvEntry>> {
    const current = await kv.watch();
    void (async () => {
      for await (const entry of current) {
        if (entry.operation === 'PUT')
          copy.set(entry.key, { stored: codec.decode(entry.value), revision: entry.revision });
        else copy.delete(entry.key);
        seen = Math.max(seen, entry.revision);
        for (let i = waiters.length - 1; i >= 0; i--) {
          if (waiters[i].sequence <= seen) waiters.splice(i, 1)[0].resolve();
        }
      }
    })();
    return current;
  }

  /** Starts the copy afresh: the stream lost messages that no watch reports (a purge, or it was recreated). */
  async function resync(): Promise<void> {
    watch.stop();
    copy.clear();
    seen = 0;
    watch = await follow();
  }

  function waitFor(sequence: number): Promise<void> {
    return new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = waiters.indexOf(waiter);
        if (index >= 0) waiters.splice(index, 1);
        reject(new RestbusError('STORE_UNAVAILABLE', `the store's copy of ${bucket} is behind; retry shortly`));
      }, CATCH_UP_MS);
      const waiter = {
        sequence,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      waiters.push(waiter);
    });
  }

  /** True when the copy holds what the stream no longer has: messages purged, or a stream made anew. */
  function lostMessages(state: StreamState): boolean {
    if (seen > state.last_seq) return true;
    let upToLast = 0;
    for (const { revision } of copy.values()) {
      if (revision > state.last_seq) continue;
      if (revision < state.first_seq) return true;
      upToLast++;
    }
    // With history 1 the stream keeps one message per key ever written: fewer than the copy's keys means a purge.
    return upToLast > state.messages;
  }

  async function catchUp(): Promise<void> {
    for (let attempt = 0; ; attempt++) {
      const { state } = await jsm.streams.info(`KV_${bucket}`);
      if (state.messages === 0) {
        // Purged to nothing: no watch entry will say so.
        copy.clear();
        seen = state.last_seq;
        return;
      }
      if (seen < state.last_seq) await waitFor(state.last_seq);
      if (!lostMessages(state) || attempt > 0) return;
      await resync();
    }
  }

  async function write(id: string, value: T, mayReplace: boolean): Promise<boolean> {
    const key = toKey(id);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const existing = await kv.get(key);
      if (!isLive(existing)) {
        try {
          await kv.create(key, codec.encode({ value }));
          return true;
        } catch (err) {
          // Another writer created it first: read again (and replace it, or report it taken).
          if (!/wrong last sequence|key exists/i.test((err as Error).message)) throw err;
          continue;
        }
      }
      if (!mayReplace) return false;
      // A replacement is last-writer-wins, as any PUT; it only carries the key's place in the order forward.
      const order = codec.decode(existing.value).order ?? existing.revision;
      await kv.put(key, codec.encode({ value, order }));
      return true;
    }
    throw new Error(`could not write ${bucket}/${id}: too many concurrent writers`);
  }

  return {
    list: () =>
      guarded(bucket, async () => {
        await catchUp();
        const all = [...copy.values()];
        all.sort((a, b) => (a.stored.order ?? a.revision) - (b.stored.order ?? b.revision));
        return all.map(({ stored }) => structuredClone(stored.value));
      }),
    get: (id) =>
      guarded(bucket, async () => {
        const entry = await kv.get(toKey(id));
        return isLive(entry) ? codec.decode(entry.value).value : undefined;
      }),
    create: (id, value) => guarded(bucket, () => write(id, value, false)),
    put: (id, value) =>
      guarded(bucket, async () => {
        await write(id, value, true);
      }),
    remove: (id) =>
      guarded(bucket, async () => {
        const key = toKey(id);
        if (!isLive(await kv.get(key))) return false;
        await kv.delete(key);
        return true;
      }),
    clear: () =>
      guarded(bucket, async () => {
        // Per-key delete markers (not a stream purge), so that every replica's copy sees the keys go.
        await catchUp();
        await Promise.all([...copy.keys()].map((key) => kv.delete(key)));
      }),
    async close() {
      watch.stop();
    },
  };
}
