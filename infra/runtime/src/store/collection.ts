import { RestbusError } from '../errors/restbus-error';
import { JsonText } from '../wire/json-text';
import { assertValidId } from './record-id';

/** Which part of a list to read: at most `limit` values after `cursor`, and no more than `maxBytes` of them. */
export interface PageRequest {
  limit?: number;
  /** The `next` of the page before; absent for the first page. */
  cursor?: string;
  /** Stops the page before its values' JSON would pass this size (a reply must fit in one NATS message). */
  maxBytes?: number;
}

/**
 * A read, and whether it may be stale: `stale` is true when the store could not confirm its latest write in time
 * (a JetStream leader election, NATS out of reach) and answered from the service's own copy instead.
 */
export interface Read<V> {
  value: V;
  stale: boolean;
}

/** One page of a list: `next` is there when more values follow. */
export interface Page<T> {
  items: readonly T[];
  /** The items as JSON text, kept while the list does not change: reply with it instead of `items`. */
  json: JsonText;
  next?: string;
  stale: boolean;
}

/**
 * A keyed collection of JSON values that lists in insertion order (a replaced value keeps its place).
 * Services keep their state in one; the JetStream key-value implementation makes it durable and shared by replicas.
 * Values read are shared and frozen: encode them, do not change them.
 */
export interface Collection<T> {
  list(page?: PageRequest): Promise<Page<T>>;
  get(id: string): Promise<Read<T | undefined>>;
  /** Adds a value; resolves false, changing nothing, when the id is taken. */
  create(id: string, value: T): Promise<boolean>;
  /** Creates or replaces. */
  put(id: string, value: T): Promise<void>;
  /** Resolves false when there was no such value. */
  remove(id: string): Promise<boolean>;
  clear(): Promise<void>;
  /** Lets go of what the collection holds open (a watch); the data stays. */
  close(): Promise<void>;
}

/** A position in the insertion order, opaque to clients: `next` of one page, `cursor` of the next. */
export function encodeCursor(order: number): string {
  return Buffer.from(`o${order}`, 'utf8').toString('base64url');
}

export function decodeCursor(cursor: string): number {
  const match = /^o(\d{1,15})$/.exec(Buffer.from(cursor, 'base64url').toString('utf8'));
  if (!match || encodeCursor(Number(match[1])) !== cursor) {
    throw new RestbusError('REQUEST_INVALID', 'cursor: not a cursor this list gave out (use the next link as it is)');
  }
  return Number(match[1]);
}

/** An entry of a list in insertion order, with the size of its value's JSON (to fill a page by bytes). */
export interface Ordered<T> {
  order: number;
  value: T;
  bytes: number;
}

// The JSON of the pages cut from one sorted list, while that list is the current one (a copy sorts anew after a
// change): reading an unchanged page again costs no encoding. A few pages per list are kept.
const pageTexts = new WeakMap<readonly Ordered<unknown>[], Map<string, JsonText>>();
const PAGES_KEPT = 32;

function encodePage(sorted: readonly Ordered<unknown>[], start: number, items: readonly unknown[]): JsonText {
  let texts = pageTexts.get(sorted);
  if (!texts) pageTexts.set(sorted, (texts = new Map()));
  const key = `${start}+${items.length}`;
  let text = texts.get(key);
  if (text === undefined) {
    text = new JsonText(JSON.stringify(items));
    if (texts.size >= PAGES_KEPT) texts.clear();
    texts.set(key, text);
  }
  return text;
}

/** Cuts one page out of entries sorted by order. At least one value per page, so that a list always progresses. */
export function cutPage<T>(sorted: readonly Ordered<T>[], request: PageRequest = {}): Omit<Page<T>, 'stale'> {
  let start = 0;
  if (request.cursor !== undefined) {
    const after = decodeCursor(request.cursor);
    let low = 0;
    let high = sorted.length;
    while (low < high) {
      const middle = (low + high) >>> 1;
      if (sorted[middle].order <= after) low = middle + 1;
      else high = middle;
    }
    start = low;
  }
  const limit = request.limit ?? Number.POSITIVE_INFINITY;
  const maxBytes = request.maxBytes ?? Number.POSITIVE_INFINITY;
  const items: T[] = [];
  let bytes = 2; // the brackets
  let end = start;
  for (; end < sorted.length && items.length < limit; end++) {
    bytes += sorted[end].bytes + 1;
    if (bytes > maxBytes && items.length > 0) break;
    items.push(sorted[end].value);
  }
  const json = encodePage(sorted, start, items);
  return end < sorted.length && items.length > 0
    ? { items, json, next: encodeCursor(sorted[end - 1].order) }
    : { items, json };
}

/** Freezes a JSON value all the way down: values in a collection are shared between readers. */
export function deepFreeze<V>(value: V): V {
  if (value !== null && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.freeze(value);
    for (const inner of Object.values(value)) deepFreeze(inner);
  }
  return value;
}

/** Keeps values in process memory: for tests, and for running a service without JetStream. */
export function createMemoryCollection<T>(): Collection<T> {
  const values = new Map<string, Ordered<T>>();
  let nextOrder = 1;
  // The list in order, until the next change (so that an unchanged page is not encoded again).
  let sorted: Ordered<T>[] | undefined;
  const store = (id: string, value: T): void => {
    const copy = deepFreeze(structuredClone(value));
    values.set(id, {
      order: values.get(id)?.order ?? nextOrder++,
      value: copy,
      bytes: Buffer.byteLength(JSON.stringify(copy)),
    });
    sorted = undefined;
  };
  const removed = (done: boolean): boolean => {
    if (done) sorted = undefined;
    return done;
  };
  return {
    list: async (page) => ({ ...cutPage((sorted ??= [...values.values()]), page), stale: false }),
    get: async (id) => ({ value: values.get(assertValidId(id))?.value, stale: false }),
    create: async (id, value) => {
      if (values.has(assertValidId(id))) return false;
      store(id, value);
      return true;
    },
    put: async (id, value) => {
      store(assertValidId(id), value);
    },
    remove: async (id) => removed(values.delete(assertValidId(id))),
    clear: async () => {
      values.clear();
      sorted = undefined;
    },
    close: async () => undefined,
  };
}
