import { randomUUID } from 'node:crypto';
import { RestbusError } from '@restbus/infra';

export type Item = Record<string, unknown>;

/** How much one stateful collection holds at most: what a mock needs, far from what would exhaust the process. */
export const MAX_STATE_ITEMS = 10_000;
export const MAX_STATE_BYTES = 16 * 1024 * 1024;

export interface ResourceState {
  /** The items in the order they were added (seeded ones first). */
  list(): Promise<Item[]>;
  get(id: string): Promise<Item | undefined>;
  /** Adds an item under its own `id`, or a new one when it has none; CONFLICT when the id is taken. */
  add(item: Item): Promise<Item>;
  /** Replaces the item with that id (the path's id wins over the body's); undefined when there is none. */
  replace(id: string, item: Item): Promise<Item | undefined>;
  remove(id: string): Promise<boolean>;
  /** Back to the seed, read again on the next use. */
  reset(): void;
}

export interface ResourceStateOptions {
  /** The collection's URI template, for messages. */
  name: string;
  /** The items to start from (the collection's mock file); read when the state is first used, and after a reset. */
  seed(): Promise<unknown>;
  maxItems?: number;
  maxBytes?: number;
}

/** An id as a path gives it: items keep the JSON type they were stored with, the lookup is by its text. */
const keyOf = (id: unknown): string | undefined =>
  (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)) ? String(id) : undefined;

/**
 * One in-memory collection of JSON objects keyed by their `id`, seeded from a mock file. Bounded in items and bytes
 * (507 STATE_FULL past either), so that a client that keeps POSTing cannot exhaust the server.
 */
export function createResourceState(options: ResourceStateOptions): ResourceState {
  const maxItems = options.maxItems ?? MAX_STATE_ITEMS;
  const maxBytes = options.maxBytes ?? MAX_STATE_BYTES;
  let items: Map<string, { item: Item; bytes: number }> | undefined;
  let bytes = 0;
  let loading: Promise<Map<string, { item: Item; bytes: number }>> | undefined;

  const store = (target: Map<string, { item: Item; bytes: number }>, key: string, item: Item): void => {
    const size = Buffer.byteLength(JSON.stringify(item));
    const before = target.get(key)?.bytes ?? 0;
    if (!target.has(key) && target.size >= maxItems) {
      throw new RestbusError('STATE_FULL', `${options.name} holds its maximum of ${maxItems} items`);
    }
    if (bytes - before + size > maxBytes) {
      throw new RestbusError('STATE_FULL', `${options.name} holds its maximum of ${maxBytes / 1024 / 1024} MiB`);
    }
    bytes += size - before;
    target.set(key, { item, bytes: size });
  };

  /** A new id: the next whole number when every id so far is one (as seeds usually are), else a UUID. */
  const newId = (target: Map<string, { item: Item; bytes: number }>): string | number => {
    const ids = [...target.values()].map(({ item }) => item.id);
    if (ids.every((id) => Number.isSafeInteger(id))) return Math.max(0, ...(ids as number[])) + 1;
    return randomUUID();
  };

  async function load(): Promise<Map<string, { item: Item; bytes: number }>> {
    if (items) return items;
    loading ??= (async () => {
      const seed = await options.seed();
      const next = new Map<string, { item: Item; bytes: number }>();
      bytes = 0;
      for (const entry of Array.isArray(seed) ? seed : []) {
        if (!entry || typeof entry !== 'object' || Array.isArray(entry)) continue;
        const item = { ...(entry as Item) };
        const key = keyOf(item.id) ?? String((item.id = newId(next)));
        if (next.has(key)) continue;
        // A seed past the bounds is cut there: the state starts full rather than not at all.
        if (next.size >= maxItems || bytes + Buffer.byteLength(JSON.stringify(item)) > maxBytes) break;
        store(next, key, item);
      }
      items = next;
      return next;
    })().finally(() => {
      loading = undefined;
    });
    return loading;
  }

  return {
    list: async () => [...(await load()).values()].map(({ item }) => item),
    get: async (id) => (await load()).get(id)?.item,
    async add(body) {
      const target = await load();
      const given = keyOf(body.id);
      if (body.id !== undefined && given === undefined) {
        throw new RestbusError('BAD_REQUEST', 'the id must be a non-empty string or a number');
      }
      if (given !== undefined && target.has(given)) {
        throw new RestbusError('CONFLICT', `${options.name} already has an item with the id ${given}`);
      }
      const item = given === undefined ? { ...body, id: newId(target) } : { ...body };
      store(target, given ?? String(item.id), item);
      return item;
    },
    async replace(id, body) {
      const target = await load();
      const current = target.get(id);
      if (!current) return undefined;
      const item = { ...body, id: current.item.id };
      store(target, id, item);
      return item;
    },
    async remove(id) {
      const target = await load();
      const current = target.get(id);
      if (!current) return false;
      bytes -= current.bytes;
      target.delete(id);
      return true;
    },
    reset() {
      items = undefined;
      loading = undefined;
      bytes = 0;
    },
  };
}
