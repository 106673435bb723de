import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import { ErrorCodes, type ErrorCode } from '../errors/restbus-error';
import { withRetryAfter } from '../errors/retry-after';

const JSON_TYPE = 'application/json; charset=utf-8';

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
  // The reason phrase is named: a failed writeHead before this one may have left its own (a "502 OK").
  res.writeHead(status, STATUS_CODES[status] ?? '', {
    ...withRetryAfter(status, headers),
    'content-type': JSON_TYPE,
    'content-length': Buffer.byteLength(body),
  });
  res.end(body);
}
