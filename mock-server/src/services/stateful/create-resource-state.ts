import { randomUUID } from 'node:crypto';
import { isJsonObject, type JsonObject, RestbusError } from '@restbus/infra';
import type { StateAccount } from './create-state-budget';
import { describeMemory, estimateMemory, estimateStringMemory } from './estimate-memory';

export type Item = JsonObject;

/**
 * How much one stateful collection holds at most: what a mock needs, far from what would exhaust the process. Bytes
 * are estimated memory (estimateMemory), not JSON text: `{}` costs V8 some twenty times its two bytes.
 */
export const MAX_STATE_ITEMS = 10_000;
export const MAX_STATE_BYTES = 32 * 1024 * 1024;

/** What the collection's own bookkeeping holds per item beside the item: its Map entry and the entry's record. */
const ITEM_OVERHEAD = 96;

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
  /** Estimated memory of the items, in bytes. */
  maxBytes?: number;
  /** Where the items' memory is counted with every other state's (a write may push the oldest sessions out). */
  account?: StateAccount;
}

/** An id as a path gives it: items keep the JSON type they were stored with, the lookup is by its text. */
const keyOf = (id: unknown): string | undefined =>
  (typeof id === 'string' && id !== '') || (typeof id === 'number' && Number.isFinite(id)) ? String(id) : undefined;

const unlimited: StateAccount = { charge: () => undefined };

/**
 * One in-memory collection of JSON objects keyed by their `id`, seeded from a mock file. Bounded in items and in the
 * memory they hold (507 STATE_FULL past either), and counted in its account with every other state, so that a
 * client that keeps POSTing cannot exhaust the server.
 */
export function createResourceState(options: ResourceStateOptions): ResourceState {
  const maxItems = options.maxItems ?? MAX_STATE_ITEMS;
  const maxBytes = options.maxBytes ?? MAX_STATE_BYTES;
  const account = options.account ?? unlimited;
  let items: Map<string, { item: Item; bytes: number }> | undefined;
  let bytes = 0;
  let loading: Promise<Map<string, { item: Item; bytes: number }>> | undefined;

  // The largest whole id (undefined once its item is removed: counted again when needed) and how many ids are not
  // whole numbers, kept as items come and go: a new id must not cost a pass over the collection, or seeding
  // thousands of items without ids would be quadratic.
  let largestWhole: number | undefined = 0;
  let notWhole = 0;
  const noteAdded = (id: unknown): void => {
    if (typeof id !== 'number' || !Number.isSafeInteger(id)) notWhole++;
    else if (largestWhole !== undefined) largestWhole = Math.max(largestWhole, id);
  };
  const noteRemoved = (id: unknown): void => {
    if (!Number.isSafeInteger(id)) notWhole--;
    else if (id === largestWhole) largestWhole = undefined;
  };

  const store = (target: Map<string, { item: Item; bytes: number }>, key: string, item: Item): void => {
    const size = estimateMemory(item) + estimateStringMemory(key) + ITEM_OVERHEAD;
    const before = target.get(key)?.bytes ?? 0;
    if (!target.has(key) && target.size >= maxItems) {
      throw new RestbusError('STATE_FULL', `${options.name} holds its maximum of ${maxItems} items`);
    }
    if (bytes - before + size > maxBytes) {
      throw new RestbusError(
        'STATE_FULL',
        `${options.name} holds its maximum of ${describeMemory(maxBytes)} of memory`,
      );
    }
    account.charge(size - before);
    bytes += size - before;
    if (!target.has(key)) noteAdded(item.id);
    target.set(key, { item, bytes: size });
  };

  /** A new id: the next whole number when every id so far is one (as seeds usually are), else a UUID. */
  const newId = (target: Map<string, { item: Item; bytes: number }>): string | number => {
    if (notWhole > 0) return randomUUID();
    // Every id is a whole number here (notWhole is 0): the typeof only tells the compiler so.
    largestWhole ??= [...target.values()].reduce(
      (largest, { item }) => (typeof item.id === 'number' ? Math.max(largest, item.id) : largest),
      0,
    );
    return largestWhole + 1;
  };

  async function load(): Promise<Map<string, { item: Item; bytes: number }>> {
    if (items) return items;
    loading ??= (async () => {
      const seed = await options.seed();
      const next = new Map<string, { item: Item; bytes: number }>();
      bytes = 0;
      largestWhole = 0;
      notWhole = 0;
      for (const entry of Array.isArray(seed) ? seed : []) {
        if (!isJsonObject(entry)) continue;
        const item = { ...entry };
        const key = keyOf(item.id) ?? String((item.id = newId(next)));
        if (next.has(key)) continue;
        // A seed past the bounds is cut there: the state starts full rather than not at all.
        try {
          store(next, key, item);
        } catch {
          break;
        }
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
      account.charge(-current.bytes);
      noteRemoved(current.item.id);
      target.delete(id);
      return true;
    },
    reset() {
      items = undefined;
      loading = undefined;
      account.charge(-bytes);
      bytes = 0;
    },
  };
}
