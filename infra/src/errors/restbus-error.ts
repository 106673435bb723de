/**
 * Stable error codes: they are API (clients and tests switch on them), the messages are prose.
 * Each code carries the HTTP status it maps to at the edge.
 */
export const ErrorCodes = {
  CONFIG_INVALID: 400,
  OPENAPI_INVALID: 400,
  PROJECT_INVALID: 400,
  MESSAGE_INVALID: 400,
  BODY_TOO_LARGE: 413,
  HEADERS_TOO_LARGE: 431,
  REQUEST_TIMEOUT: 408,
  EXPECTATION_FAILED: 417,
  BAD_REQUEST: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  NOT_ACCEPTABLE: 406,
  REQUEST_INVALID: 400,
  NOT_IMPLEMENTED: 501,
  HANDLER_FAILED: 500,
  INTERNAL: 500,
  MOCK_UNAVAILABLE: 500,
  IMPLEMENTATION_UNAVAILABLE: 500,
  IMPLEMENTATION_TIMEOUT: 500,
  PROXY_FAILED: 502,
  BAD_REPLY: 502,
  NO_RESPONDER: 503,
  NATS_UNAVAILABLE: 503,
  // The service's store (JetStream) cannot take or confirm the operation just now; answered with Retry-After.
  STORE_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
  // A program that cannot listen on its port; it stops at start, so the status is never sent.
  PORT_UNAVAILABLE: 500,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export class RestbusError extends Error {
  readonly code: ErrorCode;
  readonly status: number;

  constructor(code: ErrorCode, message: string, options?: ErrorOptions) {
    super(message, options);
    this.name = 'RestbusError';
    this.code = code;
    this.status = ErrorCodes[code];
  }
}

export function isRestbusError(value: unknown): value is RestbusError {
  return value instanceof RestbusError;
}
