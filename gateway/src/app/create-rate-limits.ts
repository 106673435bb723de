import type { Logger, NatsLink } from '@restbus/infra';
import { readTrustedProxies, type GatewayConfig } from '../config';
import type { GatewayMetrics } from '../observability/create-metrics';
import { DEFAULT_RATE_LIMIT_BUCKET } from '../rate-limits/kv-window-counts';
import { RateLimits } from '../rate-limits/rate-limits';

/** What every load's rate limits count with (x-restbus-rate-limit), for the gateway's life, and its metrics. */
export function createRateLimits(
  config: Readonly<GatewayConfig>,
  link: () => NatsLink,
  metrics: GatewayMetrics,
  logger: Logger,
): RateLimits {
  const rateLimits = new RateLimits({
    // Without -u there is no NATS to share the counts over: this gateway counts alone.
    link: config.useMessaging ? link : undefined,
    bucket: config.rateLimitBucket ?? DEFAULT_RATE_LIMIT_BUCKET,
    fallback: config.rateLimitFallback ?? 'local',
    trustedProxies: readTrustedProxies(config.rateLimitTrustedProxies),
    maxClients: config.rateLimitClients ?? 100_000,
    count: (operation, outcome) => metrics.rateLimitCall(operation, outcome),
    logger: logger.child({ component: 'rate-limits' }),
  });
  metrics.watchRateLimits(() => rateLimits.read());
  return rateLimits;
}
