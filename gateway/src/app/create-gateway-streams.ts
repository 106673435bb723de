import type { Logger, NatsLink } from '@restbus/infra';
import type { GatewayConfig } from '../config';
import type { GatewayMetrics } from '../observability/create-metrics';
import { createStreamService, type StreamService } from '../streams/create-stream-service';

/** Event streams (x-restbus-stream): their feeds read NATS only with -u; with -m alone they are mocked. */
export function createGatewayStreams(
  config: Readonly<GatewayConfig>,
  link: NatsLink | undefined,
  metrics: GatewayMetrics,
  logger: Logger,
): StreamService {
  return createStreamService({
    connection: config.useMessaging ? () => link?.current() : undefined,
    limits: {
      maxEvents: config.streamMaxEvents ?? 1000,
      maxBytes: config.streamMaxBytes ?? 1024 * 1024,
      overflow: config.streamOverflow ?? 'gap',
    },
    maxOpen: config.streamMaxOpen ?? 10_000,
    heartbeatMs: (config.streamHeartbeat ?? 15) * 1000,
    mockIntervalMs: config.mockEventInterval ?? 1000,
    registry: metrics.registry,
    logger,
  });
}
