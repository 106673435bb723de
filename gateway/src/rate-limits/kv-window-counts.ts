import type { KV } from 'nats';
import { openBucket, readErrorMessage, type Logger, type NatsLink } from '@restbus/infra';
import type { Lease, WindowCounts } from './window-counts';

/** The NATS key-value bucket the counts are kept in, unless `--rateLimitBucket` names another. */
export const DEFAULT_RATE_LIMIT_BUCKET = 'restbus_rate_limits';

/** A write that lost to another gateway's (the revision it was based on is not the last): read again and retry. */
const LOST_RACE = /wrong last sequence|key exists/i;
/** Writes lost in a row before the count is deemed too busy to answer (the gateway then counts locally). */
const MAX_RACES = 4;
/** A count's value: `<window>:<calls granted in it>`. Anything else reads as the limit spent. */
const COUNT = /^([0-9]{1,15}):([0-9]{1,10})$/;
/** Keys whose last write is remembered: past them, a write reads first (one more round trip), nothing worse. */
const MAX_REMEMBERED = 10_000;

export interface KvWindowCountsOptions {
  /** The gateway's NATS link, asked for when the bucket is first needed: a load is compiled before it is made. */
  link: () => NatsLink;
  bucket: string;
  /** How long a client's count outlives its last write (ms), set when the bucket is made: the longest window, at least. */
  ttlMs: number;
  /** Bytes the bucket keeps at most, set when it is made. */
  maxBytes: number;
  logger: Logger;
}

interface Count {
  revision: number;
  window: number;
  used: number;
}

const encoder = new TextEncoder();
const decoder = new TextDecoder();

/**
 * Counts in a JetStream key-value bucket, one key per client of a limit holding its current window and the calls
 * granted in it (one value a key: the bucket grows with the clients, not with the windows), changed only by
 * compare-and-set (`create`, else `update` at the revision read), so that two gateways granting at once never both
 * take the last calls. Any failure (NATS away, a leader being elected, a timeout) answers `unavailable`: the ledger
 * decides what that means.
 */
export class KvWindowCounts implements WindowCounts {
  private bucket?: Promise<KV>;
  /** Each key's count as this gateway last wrote it: the next write is based on it without a read. */
  private readonly lastWritten = new Map<string, Count>();

  constructor(private readonly options: KvWindowCountsOptions) {}

  async take(key: string, window: number, units: number, limit: number): Promise<Lease> {
    try {
      const kv = await this.openBucket();
      let known = this.lastWritten.get(key);
      for (let race = 0; race < MAX_RACES; race++) {
        const used = known?.window === window ? known.used : 0;
        if (used >= limit) return { kind: 'spent', used };
        const granted = Math.min(units, limit - used);
        const value = encoder.encode(`${window}:${used + granted}`);
        try {
          const revision = known ? await kv.update(key, value, known.revision) : await kv.create(key, value);
          this.remember(key, { revision, window, used: used + granted });
          return { kind: 'granted', units: granted, used: used + granted };
        } catch (err) {
          if (!LOST_RACE.test(readErrorMessage(err))) throw err;
          known = await this.read(kv, key);
        }
      }
      return { kind: 'unavailable' };
    } catch (err) {
      this.options.logger.debug({ err }, 'a rate limit count could not be read or written');
      return { kind: 'unavailable' };
    }
  }

  private openBucket(): Promise<KV> {
    const { link, bucket, ttlMs, maxBytes, logger } = this.options;
    this.bucket ??= link()
      .ready()
      .then((nc) => openBucket(nc, bucket, { ttlMs, maxBytes, logger }))
      .catch((err: unknown) => {
        // Opened again on the next call, not failed for ever.
        this.bucket = undefined;
        throw err;
      });
    return this.bucket;
  }

  /** The key's count now, undefined when it has none (never written, or expired). */
  private async read(kv: KV, key: string): Promise<Count | undefined> {
    const entry = await kv.get(key);
    if (!entry || entry.operation !== 'PUT') {
      this.lastWritten.delete(key);
      return undefined;
    }
    const match = COUNT.exec(decoder.decode(entry.value));
    // A value that is no count of ours (written by hand, cut) reads as a window past: a count of this one replaces it.
    if (!match) return { revision: entry.revision, window: -1, used: 0 };
    return { revision: entry.revision, window: Number(match[1]), used: Number(match[2]) };
  }

  /** Kept for the clients seen last only: the oldest go once there are more than the bound. */
  private remember(key: string, written: Count): void {
    this.lastWritten.delete(key);
    this.lastWritten.set(key, written);
    if (this.lastWritten.size > MAX_REMEMBERED) {
      const [oldest] = this.lastWritten.keys();
      this.lastWritten.delete(oldest);
    }
  }
}
