import type { KV, KvEntry, QueuedIterator, StreamState } from 'nats';
import { RestbusError } from '../errors/restbus-error';
import { deepFreeze, type Ordered } from './collection';

/** What is stored per key: the value, and once it has been replaced, the revision that created it. */
export interface Stored<T> {
  value: T;
  order?: number;
}

export interface CopyEntry<T> extends Ordered<T> {
  revision: number;
}

/** A service's own copy of a bucket, fed by a watch: what lists and reads are answered from. */
export interface StreamCopy<T> {
  /** The highest stream sequence the copy is known to reflect. */
  readonly seen: number;
  get(key: string): CopyEntry<T> | undefined;
  keys(): string[];
  /** The live entries in insertion order (kept until the next change). */
  sorted(): readonly CopyEntry<T>[];
  /** Resolves true once the copy reflects `sequence`, false when `ms` passed first. */
  reaches(sequence: number, ms: number): Promise<boolean>;
  /** True when the copy holds what the stream no longer has: messages purged, or a stream made anew. */
  lostMessages(state: StreamState): boolean;
  stop(): void;
}

/**
 * Starts a copy of the bucket: the stream's last sequence is read first, then a watch delivers every current
 * value and every change after. Once the initial values are in, the copy reflects at least that sequence, even
 * when the stream was purged and no message is left to say so. Resolves when the initial values are in.
 */
export async function startStreamCopy<T>(source: {
  kv: KV;
  bucket: string;
  decode: (data: Uint8Array) => Stored<T>;
  lastSequence: () => Promise<number>;
  initialMs: number;
}): Promise<StreamCopy<T>> {
  const { kv, decode, initialMs } = source;
  const entries = new Map<string, CopyEntry<T>>();
  let sorted: CopyEntry<T>[] | undefined;
  let seen = 0;
  const waiters = new Set<{ sequence: number; done: (reached: boolean) => void }>();

  const advance = (sequence: number): void => {
    if (sequence <= seen) return;
    seen = sequence;
    for (const waiter of waiters) if (waiter.sequence <= seen) waiter.done(true);
  };

  const base = await source.lastSequence();
  let initialized!: (complete: boolean) => void;
  const ready = new Promise<boolean>((resolve) => (initialized = resolve));
  const watch: QueuedIterator<KvEntry> = await kv.watch({ initializedFn: () => initialized(true) });

  void (async () => {
    for await (const entry of watch) {
      sorted = undefined;
      if (entry.operation === 'PUT') {
        const stored = decode(entry.value);
        entries.set(entry.key, {
          value: deepFreeze(stored.value),
          order: stored.order ?? entry.revision,
          revision: entry.revision,
          // The stored JSON wraps the value: a little more than the value's own JSON, so pages stay under budget.
          bytes: entry.value.length,
        });
      } else {
        entries.delete(entry.key);
      }
      advance(entry.revision);
    }
  })();
  // nats.js' own note: when the stream changes under a starting watch, the signal may never come.
  const timer = setTimeout(() => initialized(false), initialMs);
  const complete = await ready;
  clearTimeout(timer);
  if (!complete) {
    watch.stop();
    throw new RestbusError('STORE_UNAVAILABLE', `the copy of ${source.bucket} did not load in ${initialMs} ms`);
  }
  advance(base);

  return {
    get seen() {
      return seen;
    },
    get: (key) => entries.get(key),
    keys: () => [...entries.keys()],
    sorted() {
      sorted ??= [...entries.values()].sort((a, b) => a.order - b.order);
      return sorted;
    },
    reaches(sequence, ms) {
      if (sequence <= seen) return Promise.resolve(true);
      return new Promise<boolean>((resolve) => {
        const waiter = {
          sequence,
          done: (reached: boolean) => {
            clearTimeout(timer);
            waiters.delete(waiter);
            resolve(reached);
          },
        };
        const timer = setTimeout(() => waiter.done(false), ms);
        waiters.add(waiter);
      });
    },
    lostMessages(state) {
      if (seen > state.last_seq) return true;
      let upToLast = 0;
      for (const { revision } of entries.values()) {
        if (revision > state.last_seq) continue;
        if (revision < state.first_seq) return true;
        upToLast++;
      }
      // With history 1 the stream keeps one message per key ever written: fewer than the copy's keys means a purge.
      return upToLast > state.messages;
    },
    stop() {
      watch.stop();
      for (const waiter of waiters) waiter.done(false);
    },
  };
}
