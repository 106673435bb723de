import { JSONCodec, type KV, type KvEntry, type NatsConnection } from 'nats';
import type { Collection } from './collection';

/** What is stored per key: the value, and once it has been replaced, the revision that created it. */
interface Stored<T> {
  value: T;
  order?: number;
}

// Only a create can conflict, and each conflict means the key now exists; the bound only stops a livelock.
const MAX_ATTEMPTS = 10;
const CATCH_UP_MS = 1000;

// KV keys allow only [-/_=.a-zA-Z0-9]; ids are any text, so they are stored base64url-encoded.
const toKey = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');

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
  const watch = await kv.watch();
  void (async () => {
    for await (const entry of watch) {
      if (entry.operation === 'PUT')
        copy.set(entry.key, { stored: codec.decode(entry.value), revision: entry.revision });
      else copy.delete(entry.key);
      seen = Math.max(seen, entry.revision);
      for (let i = waiters.length - 1; i >= 0; i--) {
        if (waiters[i].sequence <= seen) waiters.splice(i, 1)[0].resolve();
      }
    }
  })();

  async function catchUp(): Promise<void> {
    const last = (await jsm.streams.info(`KV_${bucket}`)).state.last_seq;
    if (seen >= last) return;
    await new Promise<void>((resolve, reject) => {
      const timer = setTimeout(() => {
        const index = waiters.indexOf(waiter);
        if (index >= 0) waiters.splice(index, 1);
        reject(new Error(`the copy of ${bucket} did not catch up with sequence ${last}`));
      }, CATCH_UP_MS);
      const waiter = {
        sequence: last,
        resolve: () => {
          clearTimeout(timer);
          resolve();
        },
      };
      waiters.push(waiter);
    });
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
    async list() {
      await catchUp();
      const all = [...copy.values()];
      all.sort((a, b) => (a.stored.order ?? a.revision) - (b.stored.order ?? b.revision));
      return all.map(({ stored }) => structuredClone(stored.value));
    },
    async get(id) {
      const entry = await kv.get(toKey(id));
      return isLive(entry) ? codec.decode(entry.value).value : undefined;
    },
    create: (id, value) => write(id, value, false),
    async put(id, value) {
      await write(id, value, true);
    },
    async remove(id) {
      const key = toKey(id);
      if (!isLive(await kv.get(key))) return false;
      await kv.delete(key);
      return true;
    },
    async clear() {
      // Per-key delete markers (not a stream purge), so that every replica's copy sees the keys go.
      await catchUp();
      await Promise.all([...copy.keys()].map((key) => kv.delete(key)));
    },
    async close() {
      watch.stop();
    },
  };
}
