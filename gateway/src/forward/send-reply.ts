import type { Response } from 'express';
import type { ResponseMessage } from '@restbus/infra';

// Framing is the gateway's business: a reply must not dictate these.
const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'trailer']);

/** Text and JSON types get `charset=utf-8` when they name none, as Express (and so upstream easer) does. */
function withCharset(type: string): string {
  if (/;\s*charset=/i.test(type)) return type;
  return /^(text\/|application\/(json|[\w.+-]+\+json)\b)/i.test(type.trim()) ? `${type}; charset=utf-8` : type;
}

/**
 * Writes a reply as the HTTP response: status 200 when absent; no body for null/absent bodies and for 204/304;
 * a string verbatim (text/plain unless the reply names a type); any other JSON value as JSON.
 * Throws when the reply's headers are not valid HTTP headers (the caller answers 502).
 */
export function sendReply(res: Response, reply: ResponseMessage): void {
  const status = reply.status ?? 200;
  res.status(status);
  let hasType = false;
  for (const [name, value] of Object.entries(reply.headers ?? {})) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower)) continue;
    if (lower === 'content-type' && typeof value === 'string') {
      hasType = true;
      res.setHeader(name, withCharset(value));
      continue;
    }
    res.setHeader(name, typeof value === 'number' ? String(value) : value);
  }
  const body = reply.body;
  if (status === 204 || status === 304 || body === undefined || body === null) {
    res.end();
  } else if (typeof body === 'string') {
    if (!hasType) res.setHeader('Content-Type', 'text/plain; charset=utf-8');
    res.end(body);
  } else {
    if (!hasType) res.setHeader('Content-Type', 'application/json; charset=utf-8');
    res.end(JSON.stringify(body));
  }
}
