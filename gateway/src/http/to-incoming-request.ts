import type { IncomingMessage } from 'node:http';
import { parse as parseCookies } from 'cookie';
import type { IncomingRequest } from '@restbus/infra';
import { parseQuery } from './parse-query';

const utf8 = new TextDecoder('utf-8', { fatal: true });

function toBody(raw: Buffer): Pick<IncomingRequest, 'body' | 'bodyEncoding'> {
  if (raw.length === 0) return { body: '' };
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

/** The `request` part of the message: what is specific to this call. */
export function toIncomingRequest(
  req: IncomingMessage,
  query: string,
  params: Record<string, string>,
  body: Buffer,
): IncomingRequest {
  return {
    cookies: toCookies(req.headers.cookie),
    // Node has already lower-cased the header names.
    headers: req.headers as Record<string, string | string[]>,
    parameters: { query: parseQuery(query), uri: params },
    ...toBody(body),
  };
}
