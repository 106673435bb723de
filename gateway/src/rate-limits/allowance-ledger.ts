import { createHash } from 'node:crypto';
import type { RateLimit } from './rate-limit-extension';
import type { WindowCounts } from './window-counts';

/** A declared limit as the ledger counts it: the limit and the id its counts are kept under on every gateway. */
export interface LimitSlot {
  limit: RateLimit;
  /** The same on every gateway that loads the same document (see compileRateLimits). */
  id: string;
}

/** What a limit says of one call. */
export interface Verdict {
  admitted: boolean;
  /** Calls the client has left in the window, as far as this gateway knows. */
  remaining: number;
  /** Seconds until the window ends. */
  resetSeconds: number;
  /** Refused because the shared count did not answer and the setting says to refuse then. */
  unavailable?: boolean;
}

export interface LedgerSettings {
  /** When the shared count does not answer: count locally, each gateway its share of the limit, or refuse. */
  fallback: 'local' | 'refuse';
  /** Client windows kept at most, each some hundred bytes: past them the oldest are forgotten. */
  maxClients: number;
  /** Leases asked for at once at most: past them, a client new to this gateway is counted locally. */
  maxPending: number;
  /** How many gateways share the limits now (GatewayCensus): the local share and the lease size follow it. */
  gateways: () => number;
  now: () => number;
}

/** How long a client window counted locally waits before it asks the shared count again (ms). */
const LOCAL_RETRY_MS = 1000;
/** A client's own text longer than this is hashed before it is kept (a header can be kilobytes long). */
const MAX_CLIENT_CHARS = 128;

/** A client's part of a count's key: any text (a header's value) made a key's characters, of a bounded length. */
const hashClient = (client: string): string => createHash('sha256').update(client).digest('base64url').slice(0, 22);

/** One client's window of one limit, as this gateway holds it. */
class ClientWindow {
  /** Calls this gateway may admit in the window: its leases from the shared count, or its local share. */
  granted = 0;
  /** Calls admitted of them. */
  used = 0;
  /** Calls every gateway took of the window's count, as last seen. */
  shared = 0;
  /** The shared count has no calls left in this window. */
  spent = false;
  /** Counted locally since the shared count did not answer; asked again after `retryAt`. */
  local = false;
  /** The shared count did not answer and the setting refuses then. */
  unavailable = false;
  retryAt = 0;
  /** Once this many calls are admitted, the next lease is asked for ahead of need. */
  refillAt = 0;
  /** Calls in the last lease asked for (0 before the first), and when it was granted: the next follows the pace. */
  leaseSize = 0;
  leaseAt = 0;
  pending?: Promise<void>;

  constructor(
    /** The client's key in the shared count: the limit's id and the client's hash. */
    readonly key: string,
    readonly window: number,
  ) {}
}

/** The first lease of a client window: small, so that a gateway that stops soon after loses little of the count. */
const FIRST_LEASE = 8;
/** A lease half used within this time is followed by one twice as large: the lease grows with the client's pace. */
const GROWTH_MS = 1000;

/**
 * Calls to ask the shared count for: sized by the client's pace (the first few, then twice the last while half of it
 * goes within a second), and never more than a part of what is left that shrinks as it runs out, so that no gateway
 * hoards and a gateway that restarts loses about a second of its calls, not half of the limit.
 */
export function chooseLeaseSize(
  limit: number,
  shared: number,
  gateways: number,
  last: { size: number; msSince: number },
): number {
  const pace = last.size === 0 ? FIRST_LEASE : last.msSince < GROWTH_MS ? last.size * 2 : last.size;
  const share = Math.floor((limit - shared) / (2 * Math.max(1, gateways)));
  return Math.max(1, Math.min(pace, share));
}

/**
 * The calls each client may still make, per limit and fixed window, held in a count every gateway shares
 * (WindowCounts) and taken from it in leases: a gateway admits from its lease without asking anyone and asks for the
 * next one when half is used, so that a busy client costs a round trip per lease, not per call. The shared count
 * never grants past the limit, so all gateways together admit at most the limit in a window; what they lose is the
 * unused part of their last leases (small: a lease holds about a second of the client's calls, and at most a part of
 * what is left, shrinking as it runs out). When the shared count does not answer, each gateway admits its share of
 * the limit (limit / gateways) on its own count, and asks again a second later: in such a window the clients get at
 * most twice the limit, and never are all refused.
 */
export class AllowanceLedger {
  /** Every client window, oldest first. */
  private readonly windows = new Map<string, ClientWindow>();
  private pendingLeases = 0;

  constructor(
    private readonly counts: WindowCounts,
    private readonly settings: LedgerSettings,
  ) {}

  get size(): number {
    return this.windows.size;
  }

  /** Admits or refuses a call of `client` under `slot`: at once while this gateway holds calls for it. */
  admit(slot: LimitSlot, client: string): Verdict | Promise<Verdict> {
    const now = this.settings.now();
    const { windowMs } = slot.limit;
    const window = Math.floor(now / windowMs);
    const resetSeconds = Math.max(1, Math.ceil(((window + 1) * windowMs - now) / 1000));
    const state = this.windowOf(slot, client, window);
    if (state.used < state.granted) {
      state.used++;
      if (state.used >= state.refillAt && this.mayAsk(state, now)) void this.refill(slot, state, now);
      return this.verdict(true, slot, state, resetSeconds);
    }
    // Counted locally (the shared count was silent): past the share the call is refused at once, and the shared count
    // is asked again in the background, so that no call waits out the timeout of a NATS that is away.
    if (state.local) {
      if (this.mayAsk(state, now)) void this.refill(slot, state, now);
      return this.verdict(false, slot, state, resetSeconds);
    }
    if (!this.mayAsk(state, now) && !state.pending) return this.verdict(false, slot, state, resetSeconds);
    return this.refill(slot, state, now).then(() => {
      const admitted = state.used < state.granted;
      if (admitted) state.used++;
      return this.verdict(admitted, slot, state, resetSeconds);
    });
  }

  /** Whether the shared count may be asked for this window now: not once it is spent, nor within a second of silence. */
  private mayAsk(state: ClientWindow, now: number): boolean {
    return !state.spent && !state.pending && !(state.local && now < state.retryAt);
  }

  private verdict(admitted: boolean, slot: LimitSlot, state: ClientWindow, resetSeconds: number): Verdict {
    const held = state.granted - state.used;
    const remaining = state.local ? held : slot.limit.limit - state.shared + held;
    const verdict: Verdict = { admitted, remaining: Math.max(0, remaining), resetSeconds };
    if (!admitted && state.unavailable) verdict.unavailable = true;
    return verdict;
  }

  /** The client's window of this slot, a new one when its window turned (the old one is forgotten). */
  private windowOf(slot: LimitSlot, client: string, window: number): ClientWindow {
    const name = client.length > MAX_CLIENT_CHARS ? `#${hashClient(client)}` : client;
    const id = `${slot.id}\n${name}`;
    const known = this.windows.get(id);
    if (known?.window === window) return known;
    const state = new ClientWindow(`${slot.id}.${hashClient(client)}`, window);
    // Taken out and put back: the map's order is the windows' age, the oldest first to go.
    if (known) this.windows.delete(id);
    this.windows.set(id, state);
    for (const oldest of this.windows.keys()) {
      if (this.windows.size <= this.settings.maxClients) break;
      this.windows.delete(oldest);
    }
    return state;
  }

  /** Asks the shared count for the next lease; one at a time per client window, and `maxPending` in all. */
  private refill(slot: LimitSlot, state: ClientWindow, now: number): Promise<void> {
    if (state.pending) return state.pending;
    if (this.pendingLeases >= this.settings.maxPending) {
      this.countLocally(slot, state, now);
      return Promise.resolve();
    }
    const { limit } = slot.limit;
    const last = { size: state.leaseSize, msSince: now - state.leaseAt };
    const units = chooseLeaseSize(limit, state.shared, this.settings.gateways(), last);
    state.leaseSize = units;
    this.pendingLeases++;
    state.pending = this.counts
      .take(state.key, state.window, units, limit)
      .then((lease) => {
        if (lease.kind === 'unavailable') {
          this.countLocally(slot, state, this.settings.now());
          return;
        }
        state.local = false;
        state.unavailable = false;
        state.shared = lease.used;
        if (lease.kind === 'spent' || lease.used >= limit) state.spent = true;
        if (lease.kind === 'granted') {
          state.leaseAt = this.settings.now();
          state.granted += lease.units;
          state.refillAt = state.used + Math.ceil(lease.units / 2);
        }
      })
      // WindowCounts answers `unavailable` rather than failing; should one fail all the same, it means the same.
      .catch(() => this.countLocally(slot, state, this.settings.now()))
      .finally(() => {
        this.pendingLeases--;
        state.pending = undefined;
      });
    return state.pending;
  }

  /** The shared count did not answer: this gateway's share of the limit, on its own count, or nothing (refuse). */
  private countLocally(slot: LimitSlot, state: ClientWindow, now: number): void {
    state.retryAt = now + LOCAL_RETRY_MS;
    if (this.settings.fallback === 'refuse') {
      state.unavailable = true;
      state.local = true;
      return;
    }
    const share = Math.max(1, Math.floor(slot.limit.limit / Math.max(1, this.settings.gateways())));
    // Never more than the share on this gateway's own count: leases taken before the outage count toward it.
    if (!state.local) state.granted = Math.max(state.granted, share);
    state.local = true;
  }
}
