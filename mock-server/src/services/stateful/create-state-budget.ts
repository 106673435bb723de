import { RestbusError } from '@restbus/infra';
import { describeMemory } from './estimate-memory';

/** What all stateful collections of a server may hold together, by estimated memory (see estimateMemory). */
export const DEFAULT_STATE_MEMORY = 64 * 1024 * 1024;

/** Sessions that may hold a state of their own at once; the one used longest ago gives its place up. */
export const MAX_STATE_SESSIONS = 1000;

/** Where a state counts the memory its items hold. */
export interface StateAccount {
  /**
   * Counts `bytes` more (fewer when negative). When the total cannot take them, the sessions used longest ago give
   * their states up, the account's own excepted; STATE_FULL when that is not enough.
   */
  charge(bytes: number): void;
}

/** One session's states, by collection. */
export interface SessionStates<T> {
  account: StateAccount;
  states: Map<string, T>;
}

export interface StateBudget<T> {
  /** The account of the states no session owns: they never give way. */
  shared: StateAccount;
  /** A session's states, made the most recently used; a new session may push the oldest out. */
  sessionStates(id: string): SessionStates<T>;
  /** Every session's states gone, their memory given back. */
  clearSessions(): void;
  /** Estimated bytes held, over all accounts. */
  readonly usedBytes: number;
  readonly maxBytes: number;
}

interface SessionEntry<T> extends SessionStates<T> {
  bytes: number;
  evicted: boolean;
}

/**
 * One total over every stateful collection and session of a server, so that memory is bounded per process rather
 * than per object: a flood of new sessions, each posting large bodies, pushes the oldest sessions out (least
 * recently used first) instead of growing the heap. The states no session owns (`stateful: true`) are never pushed
 * out; when they and the asking session alone exceed the total, the write is refused (507 STATE_FULL).
 */
export function createStateBudget<T>(options: { maxBytes?: number; maxSessions?: number } = {}): StateBudget<T> {
  const maxBytes = options.maxBytes ?? DEFAULT_STATE_MEMORY;
  const maxSessions = options.maxSessions ?? MAX_STATE_SESSIONS;
  // Insertion order is use order: a session is moved to the end whenever it is used.
  const sessions = new Map<string, SessionEntry<T>>();
  let used = 0;

  const evict = (id: string, entry: SessionEntry<T>): void => {
    sessions.delete(id);
    entry.evicted = true;
    used -= entry.bytes;
    entry.bytes = 0;
    entry.states.clear();
  };

  /** Makes room for `bytes` by pushing out the sessions used longest ago, never `keep`. */
  const makeRoom = (bytes: number, keep: SessionEntry<T> | undefined): void => {
    while (used + bytes > maxBytes) {
      let oldest: [string, SessionEntry<T>] | undefined;
      for (const candidate of sessions) {
        if (candidate[1] !== keep) {
          oldest = candidate;
          break;
        }
      }
      if (!oldest) {
        throw new RestbusError(
          'STATE_FULL',
          `the mock server's state holds its maximum of ${describeMemory(maxBytes)} of memory (--state-memory)`,
        );
      }
      evict(...oldest);
    }
  };

  const shared: StateAccount = {
    charge(bytes) {
      if (bytes > 0) makeRoom(bytes, undefined);
      used += bytes;
    },
  };

  return {
    shared,
    sessionStates(id) {
      let entry = sessions.get(id);
      if (entry) sessions.delete(id);
      else {
        const created: SessionEntry<T> = {
          bytes: 0,
          evicted: false,
          states: new Map(),
          account: {
            charge(bytes) {
              // A request still working on a state that was pushed out: the state is dropped with it.
              if (created.evicted) return;
              if (bytes > 0) makeRoom(bytes, created);
              created.bytes += bytes;
              used += bytes;
            },
          },
        };
        entry = created;
        for (const [oldestId, oldest] of sessions) {
          if (sessions.size < maxSessions) break;
          evict(oldestId, oldest);
        }
      }
      sessions.set(id, entry);
      return entry;
    },
    clearSessions() {
      for (const [id, entry] of [...sessions]) evict(id, entry);
    },
    get usedBytes() {
      return used;
    },
    maxBytes,
  };
}
