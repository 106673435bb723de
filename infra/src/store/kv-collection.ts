import { JSONCodec, type KV, type KvEntry, type NatsConnection } from 'nats';
import type { Collection } from './collection';

/** What is stored per key: the value, and once it has been replaced, the revision that created it. */
interface Stored<T> {
  value: T;
  order?: number;
}

// Each conflict means another writer succeeded, so progress is guaranteed; the bound only stops a livelock.
const MAX_ATTEMPTS = 100;

// KV keys allow only [-/_=.a-zA-Z0-9]; ids are any text, so they are stored base64url-encoded.
const toKey = (id: string): string => Buffer.from(id, 'utf8').toString('base64url');

function isLive(entry: KvEntry | null): entry is KvEntry {
  return entry !== null && entry.operation === 'PUT';
}

/**
 * A {@link Collection} in a JetStream key-value bucket (file storage, one value per key): an acknowledged write
 * survives restarts of the service and of NATS, and every replica sees it. Writes use the bucket's compare-and-set
 * (`create`, `update` with the last revision) and retry on a conflict, so concurrent replicas never lose an update.
 * Insertion order is the revision that created a key; a replacement carries that revision forward.
 */
export async function openKvCollection<T>(nc: NatsConnection, bucket: string): Promise<Collection<T>> {
  const kv: KV = await nc.jetstream().views.kv(bucket, { history: 1 });
  const jsm = await nc.jetstreamManager();
  const codec = JSONCodec<Stored<T>>();

  async function entries(): Promise<Array<{ entry: KvEntry; stored: Stored<T> }>> {
    const keys: string[] = [];
    for await (const key of await kv.keys()) keys.push(key);
    const found = await Promise.all(keys.map((key) => kv.get(key)));
    return found.filter(isLive).map((entry) => ({ entry, stored: codec.decode(entry.value) }));
  }

  async function write(id: string, value: T, mayReplace: boolean): Promise<boolean> {
    const key = toKey(id);
    for (let attempt = 0; attempt < MAX_ATTEMPTS; attempt++) {
      const existing = await kv.get(key);
      try {
        if (!isLive(existing)) {
          await kv.create(key, codec.encode({ value }));
          return true;
        }
        if (!mayReplace) return false;
        const order = codec.decode(existing.value).order ?? existing.revision;
        await kv.update(key, codec.encode({ value, order }), existing.revision);
        return true;
      } catch (err) {
        // Another writer came first (wrong last sequence): read again and retry.
        if (!/wrong last sequence|key exists/i.test((err as Error).message)) throw err;
        // A little jitter so that the same writers do not collide again in lockstep.
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(attempt + 1, 10)));
      }
    }
    throw new Error(`could not write ${bucket}/${id}: too many concurrent writers`);
  }

  return {
    async list() {
      const all = await entries();
      all.sort((a, b) => (a.stored.order ?? a.entry.revision) - (b.stored.order ?? b.entry.revision));
      return all.map(({ stored }) => stored.value);
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
      await jsm.streams.purge(`KV_${bucket}`);
    },
  };
}
