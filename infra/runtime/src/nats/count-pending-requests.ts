import type { NatsConnection } from 'nats';

/** Requests made on a connection whose replies have not come (nats.js' own request/reply, e.g. JetStream's). */
export function countPendingRequests(nc: NatsConnection): number {
  // A private field of nats.js, read step by step: a release that renames it gives 0 rather than a throw.
  const protocol: unknown = Reflect.get(nc, 'protocol');
  const mux: unknown = typeof protocol === 'object' && protocol ? Reflect.get(protocol, 'muxSubscriptions') : undefined;
  const size: unknown = typeof mux === 'object' && mux ? Reflect.get(mux, 'size') : undefined;
  return typeof size === 'function' ? Number(size.call(mux)) : 0;
}
