import type { Logger } from 'pino';
import { isRestbusError, type ErrorCode } from '../errors/restbus-error';

export type FailureLevel = 'debug' | 'info' | 'warn' | 'error';

/** How one failed request is logged: the level, the message and the fields beside the request's own. */
export interface FailureLine {
  level: FailureLevel;
  message: string;
  fields: { code: ErrorCode; status: number; reason: string; err?: unknown };
}

/**
 * The program's own failures: the only ones whose stack tells a person something (a bug of ours, or of the
 * implementation function a mock server runs). Every other error was raised on purpose and its reason says it all.
 */
const OWN_FAILURES: ReadonlySet<ErrorCode> = new Set(['INTERNAL', 'HANDLER_FAILED']);

/**
 * How a request's failure is logged, the one rule of the gateway and the mock server:
 * - a client's mistake (a 4xx) is `info`, a `NOT_FOUND` `debug` (browsers ask for favicon.ico, scanners probe
 *   paths: at `info` they would drown the rest, and the path says all there is);
 * - an outage or another program's failure (503 NO_RESPONDER, 504 UPSTREAM_TIMEOUT, 502 BAD_REPLY, a mock file
 *   missing with --strict...) is `warn`;
 * - only the program's own failures (INTERNAL, HANDLER_FAILED, anything that is not a RestbusError) are `error`,
 *   with the error (its stack) under `err`.
 */
export function describeFailureLine(err: unknown): FailureLine {
  if (!isRestbusError(err)) {
    return {
      level: 'error',
      message: 'unexpected failure',
      fields: { code: 'INTERNAL', status: 500, reason: 'internal error', err },
    };
  }
  const fields = { code: err.code, status: err.status, reason: err.message };
  if (OWN_FAILURES.has(err.code)) {
    return { level: 'error', message: 'request failed', fields: { ...fields, err: err.cause ?? err } };
  }
  if (err.status >= 500) return { level: 'warn', message: 'request failed', fields };
  return { level: err.code === 'NOT_FOUND' ? 'debug' : 'info', message: 'request refused', fields };
}

/**
 * Logs one line for a request that failed, at the level describeFailureLine gives: the code, the status and the
 * reason first, then what `request` says of the request (method, route or path, request id).
 */
export function logRequestFailure(logger: Logger, err: unknown, request: Record<string, unknown>): void {
  const { level, message, fields } = describeFailureLine(err);
  if (!logger.isLevelEnabled(level)) return;
  const { err: cause, ...said } = fields;
  logger[level]({ ...said, ...request, ...(cause === undefined ? {} : { err: cause }) }, message);
}
