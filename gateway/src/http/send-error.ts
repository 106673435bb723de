import type { Response } from 'express';
import { ErrorCodes, type ErrorCode } from '@restbus/infra';

/** Sends the JSON error body every gateway failure has: `{"error": "...", "code": "..."}`. */
export function sendError(res: Response, code: ErrorCode, message: string, status: number = ErrorCodes[code]): void {
  if (res.headersSent) {
    res.destroy();
    return;
  }
  res
    .status(status)
    .type('application/json; charset=utf-8')
    .send(JSON.stringify({ error: message, code }));
}
