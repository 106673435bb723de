import { ErrorCodes, type ErrorCode } from '../errors/restbus-error';
import { withRetryAfter } from '../errors/retry-after';
import type { ResponseMessage } from './types';

const JSON_HEADERS = { 'content-type': 'application/json' };

/** A reply whose body is JSON, with `headers` over the content type. */
export function replyJson(status: number, body: unknown, headers: Record<string, string> = {}): ResponseMessage {
  return { status, headers: { ...JSON_HEADERS, ...headers }, body };
}

/**
 * The error reply every restbus service sends: the code's status and the body every restbus failure has,
 * `{error, code}`, so that the code reaches the client through the gateway as it was given; a 503 with
 * `Retry-After`.
 */
export function replyError(code: ErrorCode, message: string, headers: Record<string, string> = {}): ResponseMessage {
  const status = ErrorCodes[code];
  return replyJson(status, { error: message, code }, withRetryAfter(status, headers));
}
