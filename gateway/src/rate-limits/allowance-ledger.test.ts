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

/** Counts in memory that also add up every call they granted. */
class TalliedCounts implements WindowCounts {
  granted = 0;
  private readonly counts = new MemoryWindowCounts(1000);
  async take(key: string, window: number, units: number, limit: number): Promise<Lease> {
    const lease = await this.counts.take(key, window, units, limit);
    if (lease.kind === 'granted') this.granted += lease.units;
    return lease;
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

  it('asks the shared count once per lease, leases doubling while a client calls fast: a few asks for many calls', async () => {
    let takes = 0;
    const shared = new MemoryWindowCounts(1000);
    const counted: WindowCounts = {
      take: (...args) => {
        takes++;
        return shared.take(...args);
      },
    };
    const ledger = new AllowanceLedger(counted, settings(new Clock(), { gateways: () => 3 }));
    expect(await admitted(ledger, slot(1_000_000), 'a', 100_000)).toBe(100_000);
    // Leases of 8, 16, 32 … calls: 100,000 calls in 14 of them (8 · (2^14 − 1) > 100,000), one asked ahead.
    expect(takes).toBeLessThanOrEqual(15);
  });

  it('sizes leases by the pace of the client, within a part of what is left that shrinks as it runs out', () => {
    const first = { size: 0, msSince: 0 };
    expect(chooseLeaseSize(1_000_000_000, 0, 1, first)).toBe(8);
    expect(chooseLeaseSize(1_000_000_000, 0, 1, { size: 64, msSince: 200 })).toBe(128);
    expect(chooseLeaseSize(1_000_000_000, 0, 1, { size: 64, msSince: 5000 })).toBe(64);
    expect(chooseLeaseSize(100, 0, 3, { size: 64, msSince: 200 })).toBe(16);
    expect(chooseLeaseSize(100, 90, 3, { size: 64, msSince: 200 })).toBe(1);
    expect(chooseLeaseSize(100, 100, 3, first)).toBe(1);
  });

  it('loses about a second of calls, not half the limit, each time a gateway restarts within a window', async () => {
    const clock = new Clock();
    const shared = new TalliedCounts();
    const limit = slot(1_000_000_000, 3600);
    const lives = 10;
    const callsPerLife = 2000;
    let admittedCalls = 0;
    for (let life = 0; life < lives; life++) {
      // A new gateway process: what the last one leased and did not use is lost with it.
      const ledger = new AllowanceLedger(shared, settings(clock));
      for (let i = 0; i < callsPerLife; i++) {
        clock.at += 1; // 1,000 calls a second
        if ((await call(ledger, limit, 'a')).admitted) admittedCalls++;
      }
    }
    expect(admittedCalls).toBe(lives * callsPerLife);
    // Each life leaves at most its last two leases unused, each about a second of calls (1,000 here).
    expect(shared.granted).toBeGreaterThanOrEqual(admittedCalls);
    expect(shared.granted - admittedCalls).toBeLessThanOrEqual(lives * 2 * 2048);
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
