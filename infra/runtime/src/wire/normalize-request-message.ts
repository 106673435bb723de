import type { IncomingRequest, RequestMessage } from './types';

/** A request message as `acceptedRequestMessageSchema` admits it: restbus's shape, or easer's. */
export type AcceptedRequestMessage = Omit<RequestMessage, 'request'> & {
  request: Omit<IncomingRequest, 'cookies' | 'body'> & { cookies?: Record<string, unknown>; body?: unknown };
};

/** Whether the request's headers say that it carried a body (so that easer's `{}` was one, not its "none"). */
function declaresBody(headers: IncomingRequest['headers']): boolean {
  const length = headers['content-length'];
  return headers['transfer-encoding'] !== undefined || (typeof length === 'string' && /^0*[1-9]\d*$/.test(length));
}

/**
 * The request body as text. easer's Express body parsers left `{}` when there was no body, and a parsed value
 * (JSON, a form, XML) when one of them took it: that value is carried on as JSON text.
 */
function toBodyText(body: unknown, headers: IncomingRequest['headers']): string {
  if (body === undefined || body === null) return '';
  if (typeof body === 'string') return body;
  const isEmptyObject = typeof body === 'object' && !Array.isArray(body) && Object.keys(body).length === 0;
  if (isEmptyObject && !declaresBody(headers)) return '';
  return JSON.stringify(body);
}

/** cookie-parser turned `j:{...}` cookies into values: they are carried on as the text the cookie held. */
function toCookieTexts(cookies: Record<string, unknown> | undefined): Record<string, string> {
  const texts: Record<string, string> = {};
  for (const [name, value] of Object.entries(cookies ?? {})) {
    texts[name] = typeof value === 'string' ? value : `j:${JSON.stringify(value)}`;
  }
  return texts;
}

/** Gives an accepted request message the one shape handlers see: cookies as texts, the body as text. */
export function normalizeRequestMessage(message: AcceptedRequestMessage): RequestMessage {
  const { request } = message;
  if (typeof request.body === 'string' && request.cookies !== undefined && isTextMap(request.cookies)) {
    return message as RequestMessage;
  }
  const { body, bodyEncoding, cookies, ...rest } = request;
  return {
    ...message,
    request: {
      ...rest,
      cookies: toCookieTexts(cookies),
      body: toBodyText(body, request.headers),
      ...(typeof body === 'string' && bodyEncoding ? { bodyEncoding } : {}),
    },
  };
}

function isTextMap(map: Record<string, unknown>): map is Record<string, string> {
  for (const key in map) if (typeof map[key] !== 'string') return false;
  return true;
}
