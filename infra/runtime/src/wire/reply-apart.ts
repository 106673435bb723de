import type { MsgHdrs } from 'nats';
import { RestbusError } from '../errors/restbus-error';
import { compileResponseCheck, describeSchemaErrors } from './codec';
import { JsonText } from './json-text';
import type { HeaderValue, ResponseMessage } from './types';

/**
 * A request carrying this NATS header (value `body-apart`) says its sender reads replies whose body travels apart:
 * the reply's status and headers in the `Restbus-Reply-Head` header as JSON, the body's bytes as the payload. The
 * gateway writes those bytes to the client as they are, instead of parsing a JSON envelope and writing its body
 * again (a quarter of its CPU for a list of 100 persons). Requests without it (easer's gateway, tests, other
 * programs) get the JSON envelope as before.
 */
export const REPLY_FORM_HEADER = 'Restbus-Reply-Form';
export const BODY_APART = 'body-apart';
/** On a reply whose body travels apart: `{"status":..,"headers":{..}}`. */
export const REPLY_HEAD_HEADER = 'Restbus-Reply-Head';

/**
 * The type a reply's body is sent with when the reply names none: text for a string, JSON for any other value (as
 * Express, and so easer, did). The gateway writes envelopes by it, and services split replies by it.
 */
export function defaultContentType(body: unknown): string {
  return typeof body === 'string' ? 'text/plain; charset=utf-8' : 'application/json; charset=utf-8';
}
const encoder = new TextEncoder();

export interface ReplyApart {
  /** The JSON of the status and headers, for the `Restbus-Reply-Head` header. */
  head: string;
  payload: Uint8Array;
}

function hasContentType(headers: Record<string, HeaderValue>): boolean {
  return Object.keys(headers).some((name) => name.toLowerCase() === 'content-type');
}

/**
 * Splits a reply into head and body bytes. The content type the gateway would have given the body in the envelope
 * (text for a string, JSON for any other value) is written into the head when the reply names none, so the two
 * forms answer the client alike. No body (absent or null) is an empty payload without a content type.
 */
export function encodeReplyApart(reply: ResponseMessage): ReplyApart {
  const headers: Record<string, HeaderValue> = { ...(reply.headers ?? {}) };
  let payload: Uint8Array = new Uint8Array(0);
  const body = reply.body;
  if (body !== undefined && body !== null) {
    if (!hasContentType(headers)) headers['content-type'] = defaultContentType(body);
    payload =
      body instanceof JsonText ? body.bytes() : encoder.encode(typeof body === 'string' ? body : JSON.stringify(body));
  }
  return { head: JSON.stringify({ status: reply.status ?? 200, headers }), payload };
}

/**
 * The reply a `Restbus-Reply-Head` header describes, its body the payload's bytes (to be written as they are), or
 * undefined when the reply is an envelope.
 */
export function decodeReplyApart(headers: MsgHdrs | undefined, payload: Uint8Array): ResponseMessage | undefined {
  const head = headers?.get(REPLY_HEAD_HEADER);
  if (!head) return undefined;
  let value: unknown;
  try {
    value = JSON.parse(head);
  } catch (err) {
    throw new RestbusError('BAD_REPLY', `the reply's ${REPLY_HEAD_HEADER} header is not JSON`, { cause: err });
  }
  // The head is a response message without its body: the codec's check of replies, and no body.
  const response = compileResponseCheck();
  if (!response(value) || value.body !== undefined) {
    throw new RestbusError(
      'BAD_REPLY',
      `the reply's ${REPLY_HEAD_HEADER} header is not a status and headers: ${describeSchemaErrors(response.errors) || '/body: must not be there'}`,
    );
  }
  return { ...value, body: payload.length > 0 || hasContentType(value.headers ?? {}) ? payload : undefined };
}
