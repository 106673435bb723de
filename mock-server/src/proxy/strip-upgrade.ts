import type { ClientRequest } from 'node:http';

/**
 * Forwards a request that asks for a protocol upgrade (a WebSocket) as the plain request it also is: the mock server
 * serves no upgrades, and a remote's `101` would reach no one (Node drops the socket of an upgrade nobody takes),
 * leaving the client waiting until the proxy timeout. The remote answers it as HTTP instead (a WebSocket server: 426).
 */
export function stripUpgrade(proxyReq: ClientRequest): void {
  if (!proxyReq.hasHeader('upgrade')) return;
  proxyReq.removeHeader('upgrade');
  const connection = proxyReq.getHeader('connection');
  if (typeof connection === 'string' && /\bupgrade\b/i.test(connection)) proxyReq.setHeader('connection', 'close');
}
