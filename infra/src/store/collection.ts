import { assertValidId } from './record-id';

/**
 * A keyed collection of JSON values that lists in insertion order (a replaced value keeps its place).
 * Services keep their state in one; the JetStream key-value implementation makes it durable and shared by replicas.
 */
export interface Collection<T> {
  list(): Promise<T[]>;
  get(id: string): Promise<T | undefined>;
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

/** Keeps values in process memory: for tests, and for running a service without JetStream. */
export function createMemoryCollection<T>(): Collection<T> {
  const values = new Map<string, T>();
  const copy = (value: T): T => structuredClone(value);
  return {
    list: async () => [...values.values()].map(copy),
    get: async (id) => {
      const value = values.get(assertValidId(id));
      return value === undefined ? undefined : copy(value);
    },
    create: async (id, value) => {
      if (values.has(assertValidId(id))) return false;
      values.set(id, copy(value));
      return true;
    },
    put: async (id, value) => {
      values.set(assertValidId(id), copy(value));
    },
    remove: async (id) => values.delete(assertValidId(id)),
    clear: async () => values.clear(),
    close: async () => undefined,
  };
}
