import type { NatsConnection } from 'nats';
import { countPendingRequests } from './count-pending-requests';
import { within } from './within';

// The new connection's subscriptions reach its server before the flush returns, the other servers a moment later
// (route gossip): the old ones are kept that long at least, so that no server sees neither.
const PROPAGATE_MS = 100;

/**
 * Drains a connection left behind, once the requests made on it have their replies (or `settleMs` passed); the
 * drain may take `drainMs`, then the connection is closed regardless.
 */
export async function retireConnection(nc: NatsConnection, settleMs: number, drainMs: number): Promise<void> {
  const started = performance.now();
  await new Promise((resolve) => setTimeout(resolve, PROPAGATE_MS));
  while (countPendingRequests(nc) > 0 && performance.now() - started < settleMs && !nc.isClosed()) {
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  if (nc.isClosed()) return;
  try {
    await within(nc.isDraining() ? nc.closed() : nc.drain(), drainMs);
  } catch {
    // A drain that cannot finish (its server went away meanwhile) must not keep the connection open.
  }
  if (!nc.isClosed()) await nc.close();
}
