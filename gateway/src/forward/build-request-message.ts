import type { Request } from 'express';
import { parse as parseCookies } from 'cookie';
import type { EndpointDesc, IncomingRequest, RequestMessage } from '@restbus/infra';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function toBody(raw: unknown): Pick<IncomingRequest, 'body' | 'bodyEncoding'> {
  if (!Buffer.isBuffer(raw) || raw.length === 0) return { body: '' };
  try {
    return { body: utf8.decode(raw) };
  } catch {
    // Not text: the bytes travel intact as base64 and the flag tells the service so.
    return { body: raw.toString('base64'), bodyEncoding: 'base64' };
  }
}

function toCookies(header: string | undefined): Record<string, string> {
  if (!header) return {};
  const cookies: Record<string, string> = {};
  for (const [name, value] of Object.entries(parseCookies(header))) if (value !== undefined) cookies[name] = value;
  return cookies;
}

/** The request message for one call, as the wire contract describes it. */
export function buildRequestMessage(topic: string, desc: EndpointDesc, req: Request): RequestMessage {
  return {
    topic,
    method: desc.method,
    uri: desc.uri,
    endpointDesc: desc,
    request: {
      cookies: toCookies(req.headers.cookie),
      // Node has already lower-cased the names; undefined values cannot occur in IncomingHttpHeaders entries.
      headers: req.headers as Record<string, string | string[]>,
      parameters: {
        query: req.query as Record<string, string | string[]>,
        uri: { ...(req.params as Record<string, string>) },
      },
      ...toBody(req.body),
    },
  };
}
