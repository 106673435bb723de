import type { JetStreamClient, JetStreamManager, NatsConnection } from 'nats';
import { MAKE_TIMEOUT_MS } from './feed-consumer';

/** What the JetStream feeds of one connection read and make consumers with. */
export interface JetStreamLinks {
  js: JetStreamClient;
  jsm: JetStreamManager;
  /** Makes consumers: its requests time out soon, and are sent again (makeConsumer). */
  maker: JetStreamManager;
}

export async function openJetStreamLinks(nc: NatsConnection): Promise<JetStreamLinks> {
  const [jsm, maker] = await Promise.all([
    nc.jetstreamManager(),
    nc.jetstreamManager({ timeout: MAKE_TIMEOUT_MS, checkAPI: false }),
  ]);
  return { jsm, maker, js: nc.jetstream() };
}
