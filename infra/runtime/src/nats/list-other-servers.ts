import type { NatsConnection } from 'nats';

/**
 * The servers a connection may move to when it leaves `server` (the one `from` is on, or the one it names): those
 * of the -n list and those its server's INFO gossips (nats.js' ignoreClusterUpdates is off), without the one left.
 */
export function listOtherServers(servers: readonly string[], from: NatsConnection, server: string): string[] {
  const bare = (url: string): string => url.replace(/^[a-z][a-z0-9+.-]*:\/\//i, '');
  return [...new Set([...servers, ...(from.info?.connect_urls ?? [])])].filter(
    (url) => bare(url) !== bare(server) && bare(url) !== bare(from.getServer()),
  );
}
