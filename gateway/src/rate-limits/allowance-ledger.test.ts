import {
  AllowanceLedger,
  chooseLeaseSize,
  type LedgerSettings,
  type LimitSlot,
  type Verdict,
} from './allowance-ledger';
import { MemoryWindowCounts } from './memory-window-counts';
import type { Lease, WindowCounts } from './window-counts';

const slot = (limit: number, windowSeconds = 60): LimitSlot => ({
  id: 'slot',
  limit: { name: 'limit', limit, windowMs: windowSeconds * 1000, windowSeconds, by: { kind: 'address' } },
});

/** A clock the test moves: windows turn when it says so. */
class Clock {
  at = 1_000_000_000_000;
  readonly now = (): number => this.at;
}

function settings(clock: Clock, overrides: Partial<LedgerSettings> = {}): LedgerSettings {
  return { fallback: 'local', maxClients: 1000, maxPending: 64, gateways: () => 1, now: clock.now, ...overrides };
}

/** The counts a NATS that does not answer gives: every lease unavailable, and how many were asked. */
class SilentCounts implements WindowCounts {
  asked = 0;
  take(): Promise<Lease> {
    this.asked++;
    return Promise.resolve({ kind: 'unavailable' });
  }
}

/** Counts that answer when the test says: leases in flight at once are what it measures. */
class HeldCounts implements WindowCounts {
  readonly waiting: Array<() => void> = [];
  take(_key: string, _window: number, units: number): Promise<Lease> {
    return new Promise((done) => this.waiting.push(() => done({ kind: 'granted', units, used: units })));
  }
}

async function call(ledger: AllowanceLedger, limit: LimitSlot, client: string): Promise<Verdict> {
  return ledger.admit(limit, client);
}

async function admitted(ledger: AllowanceLedger, limit: LimitSlot, client: string, calls: number): Promise<number> {
  let count = 0;
  for (let i = 0; i < calls; i++) if ((await call(ledger, limit, client)).admitted) count++;
  return count;
}

describe('AllowanceLedger', () => {
  it('admits a client up to the limit in a window, then refuses it until the window turns', async () => {
    const clock = new Clock();
    const ledger = new AllowanceLedger(new MemoryWindowCounts(1000), settings(clock));
    const limit = slot(10);
    expect(await admitted(ledger, limit, 'a', 15)).toBe(10);
    const refused = await call(ledger, limit, 'a');
    expect(refused).toMatchObject({ admitted: false, remaining: 0 });
    expect(refused.resetSeconds).toBeGreaterThan(0);
    clock.at += 60_000;
    expect(await admitted(ledger, limit, 'a', 15)).toBe(10);
  });

  it('counts two clients apart', async () => {
    const ledger = new AllowanceLedger(new MemoryWindowCounts(1000), settings(new Clock()));
    const limit = slot(3);
    expect(await admitted(ledger, limit, 'a', 5)).toBe(3);
    expect(await admitted(ledger, limit, 'b', 5)).toBe(3);
  });

  it('says how many calls are left and when the window ends', async () => {
    const clock = new Clock();
    clock.at = 60_000 * 1_000_000 + 45_000; // 15 s before a 1-minute window ends
    const ledger = new AllowanceLedger(new MemoryWindowCounts(1000), settings(clock));
    const limit = slot(5);
    await call(ledger, limit, 'a');
    expect(await call(ledger, limit, 'a')).toEqual({ admitted: true, remaining: 3, resetSeconds: 15 });
  });

  it('lets three gateways sharing the counts admit at most the limit together, however the calls are spread', async () => {
    const clock = new Clock();
    const shared = new MemoryWindowCounts(1000);
    const gateways = [0, 1, 2].map(() => new AllowanceLedger(shared, settings(clock, { gateways: () => 3 })));
    const limit = slot(100);
    let total = 0;
    for (let i = 0; i < 400; i++) if ((await call(gateways[i % 3], limit, 'a')).admitted) total++;
    expect(total).toBeLessThanOrEqual(100);
    // What the gateways lose is the unused part of their last leases: a part of what was left, small at the end.
    expect(total).toBeGreaterThanOrEqual(95);
  });

  it('asks the shared count once per lease, not once per call', async () => {
    let takes = 0;
    const shared = new MemoryWindowCounts(1000);
    const counted: WindowCounts = {
      take: (...args) => {
        takes++;
        return shared.take(...args);
      },
    };
    const ledger = new AllowanceLedger(counted, settings(new Clock(), { gateways: () => 3 }));
    expect(await admitted(ledger, slot(10_000), 'a', 1000)).toBe(1000);
    expect(takes).toBeLessThanOrEqual(3);
  });

  it('makes leases a part of what is left that shrinks as it runs out, at least one call', () => {
    expect(chooseLeaseSize(100, 0, 3)).toBe(16);
    expect(chooseLeaseSize(100, 90, 3)).toBe(1);
    expect(chooseLeaseSize(100, 100, 3)).toBe(1);
    expect(chooseLeaseSize(1000, 0, 1)).toBe(500);
  });

  it('admits each gateway its share of the limit when the shared count does not answer, and asks again a second later', async () => {
    const clock = new Clock();
    const silent = new SilentCounts();
    const ledger = new AllowanceLedger(silent, settings(clock, { gateways: () => 4 }));
    const limit = slot(100);
    expect(await admitted(ledger, limit, 'a', 200)).toBe(25);
    expect(silent.asked).toBe(1);
    clock.at += 1000;
    // Asked again, still silent: no second share in the same window.
    expect(await admitted(ledger, limit, 'a', 10)).toBe(0);
    expect(silent.asked).toBe(2);
  });

  it('refuses as unavailable when the shared count does not answer and the setting says to refuse', async () => {
    const ledger = new AllowanceLedger(new SilentCounts(), settings(new Clock(), { fallback: 'refuse' }));
    expect(await call(ledger, slot(100), 'a')).toMatchObject({ admitted: false, unavailable: true });
  });

  it('keeps at most maxClients client windows, whatever the number of clients', async () => {
    const ledger = new AllowanceLedger(new MemoryWindowCounts(100_000), settings(new Clock(), { maxClients: 500 }));
    for (let i = 0; i < 5000; i++) await call(ledger, slot(10), `client-${i}`);
    expect(ledger.size).toBe(500);
  });

  it('keeps a flood of new clients from asking NATS more than maxPending leases at once: the rest count locally', async () => {
    const held = new HeldCounts();
    const ledger = new AllowanceLedger(held, settings(new Clock(), { maxPending: 8, gateways: () => 2 }));
    const verdicts = Array.from({ length: 100 }, (_, i) => ledger.admit(slot(10), `client-${i}`));
    expect(held.waiting).toHaveLength(8);
    for (const answer of held.waiting) answer();
    const settled = await Promise.all(verdicts);
    expect(settled.every((verdict) => verdict.admitted)).toBe(true);
  });

  it('keeps a very long client text by its hash, and finds it again', async () => {
    const ledger = new AllowanceLedger(new MemoryWindowCounts(1000), settings(new Clock()));
    const long = 'x'.repeat(10_000);
    expect(await admitted(ledger, slot(3), long, 5)).toBe(3);
    expect(ledger.size).toBe(1);
  });
});
