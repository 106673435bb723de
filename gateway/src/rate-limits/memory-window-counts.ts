import type { Lease, WindowCounts } from './window-counts';

/**
 * Counts kept in this process: for a gateway that is the only one (no NATS to share counts over, as with -m alone).
 * Bounded in keys: past `maxKeys`, the oldest go (clients that stopped calling).
 */
export class MemoryWindowCounts implements WindowCounts {
  private readonly used = new Map<string, { window: number; used: number }>();

  constructor(private readonly maxKeys: number) {}

  take(key: string, window: number, units: number, limit: number): Promise<Lease> {
    const count = this.used.get(key);
    const used = count?.window === window ? count.used : 0;
    if (used >= limit) return Promise.resolve({ kind: 'spent', used });
    const granted = Math.min(units, limit - used);
    this.used.delete(key);
    this.used.set(key, { window, used: used + granted });
    for (const oldest of this.used.keys()) {
      if (this.used.size <= this.maxKeys) break;
      this.used.delete(oldest);
    }
    return Promise.resolve({ kind: 'granted', units: granted, used: used + granted });
  }
}
