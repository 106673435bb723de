import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
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
 * Throws, before anything is sent, when the reply's headers are not valid HTTP headers (the caller answers 502).
 */
export function sendReply(res: ServerResponse, reply: ResponseMessage, extraHeaders: OutgoingHttpHeaders): void {
  const status = reply.status ?? 200;
  const headers: OutgoingHttpHeaders = { ...extraHeaders };
  let type: string | undefined;
  if (reply.headers) {
    for (const name of Object.keys(reply.headers)) {
      const lower = name.toLowerCase();
      if (HOP_BY_HOP.has(lower)) continue;
      const value = reply.headers[name];
      if (lower === 'content-type') type = String(value);
      else headers[lower] = typeof value === 'number' ? String(value) : value;
    }
  }
  const body = reply.body;
  let text: string | undefined;
  if (status !== 204 && status !== 304 && body !== undefined && body !== null) {
    if (typeof body === 'string') {
      text = body;
      type ??= 'text/plain; charset=utf-8';
    } else {
      text = JSON.stringify(body);
      type ??= 'application/json; charset=utf-8';
    }
  }
  if (type !== undefined) headers['content-type'] = withCharset(type);
  if (text !== undefined) headers['content-length'] = Buffer.byteLength(text);
  else if (status !== 204 && status !== 304) headers['content-length'] = 0;
  res.writeHead(status, headers);
  res.end(text);
}
