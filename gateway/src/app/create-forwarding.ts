import type { Logger, NatsLink } from '@restbus/infra';
import type { GatewayConfig } from '../config';
import { createForwarder, type Forwarder } from '../forward/create-forwarder';
import type { GatewayMetrics } from '../observability/create-metrics';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { ReplyChecker } from '../replies/create-reply-checks';

// Loaded with --validateReplies only, not at every start.
const loadReplyCheckingForwarder = (): typeof import('../replies/create-reply-checking-forwarder') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the mode that uses it
  require('../replies/create-reply-checking-forwarder') as typeof import('../replies/create-reply-checking-forwarder');

/**
 * How calls are forwarded with -u, undefined without it. --validateReplies wraps the forwarder: the call path is the
 * same with and without it; `checkers` gives the current load's reply checks.
 */
export function createForwarding(
  config: Readonly<GatewayConfig>,
  link: NatsLink | undefined,
  checkers: () => ReadonlyMap<ApiEndpoint, ReplyChecker>,
  metrics: GatewayMetrics,
  logger: Logger,
): Forwarder | undefined {
  if (!link || !config.useMessaging) return undefined;
  const forwarder = createForwarder({ link, timeoutMs: config.timeout, inboxPrefix: config.inboxPrefix });
  const mode = config.validateReplies ?? 'off';
  if (mode === 'off') return forwarder;
  return loadReplyCheckingForwarder().createReplyCheckingForwarder({
    forward: forwarder,
    mode,
    sample: config.validateRepliesSample ?? 1,
    checkers,
    metrics,
    logger,
  });
}
