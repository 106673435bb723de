import type { IncomingMessage } from 'node:http';
import proxyAddr from 'proxy-addr';
import type { PolicyCall } from '../security/call-policy';
import type { ClientKind } from './rate-limit-extension';

/** Who a call's client is for a limit: its subject, a header's value or its address, as the limit's `by` says. */
export type ClientReader = (by: ClientKind, call: PolicyCall) => string;

/**
 * The client reader of a gateway whose direct callers in `trustedProxies` (addresses, CIDR ranges, or proxy-addr's
 * names: `loopback`, `linklocal`, `uniquelocal`) are proxies: their `X-Forwarded-For` names the client, read from the
 * right as far as the proxies go (proxy-addr, as express's `trust proxy`). A caller that is no trusted proxy is the
 * client itself, whatever it forwards. The kinds are kept apart (`s:`, `h:`, `a:`), so that a header can never pass
 * for a subject.
 */
export function createClientReader(trustedProxies: readonly string[]): ClientReader {
  const trust = proxyAddr.compile([...trustedProxies]);
  const addressOf = (req: IncomingMessage): string => `a:${proxyAddr(req, trust)}`;
  return (by, call) => {
    switch (by.kind) {
      case 'anyone':
        return '*';
      case 'subject':
        return call.user ? `s:${call.user.subject}` : addressOf(call.req);
      case 'header': {
        const value = call.req.headers[by.name];
        if (typeof value === 'string' && value !== '') return `h:${value}`;
        return Array.isArray(value) && value.length > 0 ? `h:${value.join(',')}` : addressOf(call.req);
      }
      default:
        return addressOf(call.req);
    }
  };
}
