import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { ErrorCodes, type ErrorCode } from '../errors/restbus-error';

const JSON_TYPE = 'application/json; charset=utf-8';

/** What a 503 asks the client to wait, in seconds: about how long a NATS node's loss or a leader election takes. */
export const RETRY_AFTER_SECONDS = '2';

const hasHeader = (headers: OutgoingHttpHeaders | undefined, name: string): boolean =>
  Object.keys(headers ?? {}).some((key) => key.toLowerCase() === name);

/**
 * The JSON error body every restbus failure has, as text: the one place it is written. `details` add fields after
 * the two every body has (the gateway's `problems` of an invalid request).
 */
export const formatErrorBody = (code: ErrorCode, message: string, details?: Record<string, unknown>): string =>
  JSON.stringify({ error: message, code, ...details });

export interface ErrorAnswer {
  /** Another status than the code's (the mock server's proxy passes an upstream one on). */
  status?: number;
  /** Fields of the body beside `error` and `code`. */
  details?: Record<string, unknown>;
}

/** Sends the JSON error body every restbus failure has (gateway, mock server): `{"error": "...", "code": "..."}`. */
export function sendError(
  res: ServerResponse,
  code: ErrorCode,
  message: string,
  headers?: OutgoingHttpHeaders,
  answer: ErrorAnswer = {},
): void {
  const status = answer.status ?? ErrorCodes[code];
  if (res.headersSent) {
    // Too late for a status: cut the response so the client cannot mistake it for a complete one.
    res.destroy();
    return;
  }
  const body = formatErrorBody(code, message, answer.details);
  // A 503 is a moment's unavailability (no responder, the bus or the store moving): say when to try again, so
  // clients and load balancers back off instead of failing the call for good (RFC 9110 §10.2.3).
  const retry = status === 503 && !hasHeader(headers, 'retry-after') ? { 'retry-after': RETRY_AFTER_SECONDS } : {};
  // The reason phrase is named: a failed writeHead before this one may have left its own (a "502 OK").
  res.writeHead(status, STATUS_CODES[status] ?? '', {
    ...headers,
    ...retry,
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
