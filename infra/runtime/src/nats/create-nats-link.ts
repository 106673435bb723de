import type { NatsLink, NatsLinkOptions } from './nats-link';
import { RetryingNatsLink } from './retrying-nats-link';

export type { NatsLink, NatsLinkOptions } from './nats-link';

/** Starts connecting to NATS in the background (retried until it succeeds or the link is drained). */
export function createNatsLink(options: NatsLinkOptions): NatsLink {
  return new RetryingNatsLink(options);
}
