import type { Logger, NatsLink } from '@restbus/infra';
import { AllowanceLedger } from './allowance-ledger';
import { GatewayCensus } from './gateway-census';
import { KvWindowCounts } from './kv-window-counts';
import { MemoryWindowCounts } from './memory-window-counts';
import { createClientReader } from './read-client';
import type { RateLimitParts } from './compile-rate-limits';
import type { RateLimitCounter } from './rate-limit-policy';

export interface RateLimitSettings {
  /** The NATS link the counts are shared over (-u); without one, this gateway counts alone. */
  link?: () => NatsLink;
  bucket: string;
  fallback: 'local' | 'refuse';
  /** Direct callers whose X-Forwarded-For names the client (createClientReader). */
  trustedProxies: readonly string[];
  /** Client windows this gateway keeps at most. */
  maxClients: number;
  count: RateLimitCounter;
  logger: Logger;
}

/** How often a gateway says it is there to the others (ms). */
const CENSUS_INTERVAL_MS = 2000;
/** How long a client's count outlives its last write: past the longest window a limit may declare (31 days). */
const COUNT_TTL_MS = 32 * 86_400_000;
/** What the bucket keeps at most: some hundred bytes per client, so a few hundred thousand clients. */
const BUCKET_BYTES = 64 * 1024 * 1024;
/** Leases asked for at once at most: a flood of new clients past it is counted locally, not sent to NATS. */
const MAX_PENDING_LEASES = 256;

/**
 * What every load's rate limits count with, for the gateway's life (a reload keeps the counts): the ledger over the
 * counts in NATS (or in this process, without NATS), the census of the gateways that share them, who a client is.
 */
export class RateLimits {
  readonly parts: RateLimitParts;
  private readonly census?: GatewayCensus;

  constructor(settings: RateLimitSettings) {
    const { link, logger } = settings;
    this.census = link ? new GatewayCensus({ link, intervalMs: CENSUS_INTERVAL_MS, logger }) : undefined;
    const counts = link
      ? new KvWindowCounts({ link, bucket: settings.bucket, ttlMs: COUNT_TTL_MS, maxBytes: BUCKET_BYTES, logger })
      : new MemoryWindowCounts(settings.maxClients);
    const census = this.census;
    const ledger = new AllowanceLedger(counts, {
      fallback: settings.fallback,
      maxClients: settings.maxClients,
      maxPending: MAX_PENDING_LEASES,
      gateways: () => census?.gateways ?? 1,
      now: Date.now,
    });
    this.parts = { ledger, readClient: createClientReader(settings.trustedProxies), count: settings.count };
  }

  /** Client windows kept, and gateways heard sharing the limits (1 without NATS). */
  read(): { clients: number; gateways: number } {
    return { clients: this.parts.ledger.size, gateways: this.census?.gateways ?? 1 };
  }

  /** Starts counting the gateways (once NATS is there); called once a load has limits. */
  start(): void {
    this.census?.start();
  }

  stop(): void {
    this.census?.stop();
  }
}
