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
  // No credentials an operation's security accepts (WWW-Authenticate names what would do).
  UNAUTHORIZED: 401,
  // A token or key was sent but cannot be trusted: forged, malformed, from another issuer or audience, revoked.
  TOKEN_INVALID: 401,
  // A token that was valid and has expired: the client gets a new one.
  TOKEN_EXPIRED: 401,
  FORBIDDEN: 403,
  // Verified credentials without every scope the operation asks for (WWW-Authenticate names them).
  INSUFFICIENT_SCOPE: 403,
  NOT_FOUND: 404,
  METHOD_NOT_ALLOWED: 405,
  // A client past a limit its operation declares (x-restbus-rate-limit); answered with Retry-After and RateLimit.
  RATE_LIMITED: 429,
  // What the request asks for contradicts what is stored (e.g. creating what exists).
  CONFLICT: 409,
  STATE_FULL: 507,
  NOT_ACCEPTABLE: 406,
  // A body in a content coding or charset the server cannot decode (the mock server's form and text bodies).
  UNSUPPORTED_MEDIA_TYPE: 415,
  REQUEST_INVALID: 400,
  NOT_IMPLEMENTED: 501,
  HANDLER_FAILED: 500,
  INTERNAL: 500,
  MOCK_UNAVAILABLE: 500,
  IMPLEMENTATION_UNAVAILABLE: 500,
  IMPLEMENTATION_TIMEOUT: 500,
  PROXY_FAILED: 502,
  BAD_REPLY: 502,
  // A service's reply breaks its operation's contract (the gateway's --validateReplies enforce); `problems` say how.
  REPLY_INVALID: 502,
  // A NATS service that is not restbus's answered an error with the services API headers only (no code of ours):
  // the client gets the status that service gave, this code, and its message.
  SERVICE_ERROR: 500,
  NO_RESPONDER: 503,
  NATS_UNAVAILABLE: 503,
  // The service's store (JetStream) cannot take or confirm the operation just now; answered with Retry-After.
  STORE_UNAVAILABLE: 503,
  // The gateway serves its maximum of open event streams (--streamMaxOpen); answered with Retry-After.
  STREAMS_FULL: 503,
  // The gateway cannot verify credentials just now (the issuer's keys were never fetched); answered with Retry-After.
  AUTH_UNAVAILABLE: 503,
  // The gateway cannot count a limited operation's calls just now (NATS away, --rateLimitFallback refuse).
  RATE_LIMIT_UNAVAILABLE: 503,
  UPSTREAM_TIMEOUT: 504,
  // A program that cannot listen on its port; it stops at start, so the status is never sent.
  PORT_UNAVAILABLE: 500,
  // The command line: one a program does not understand (commander said why; exit 2), and a request for help or
  // the version, answered (exit 0). Never sent over HTTP.
  USAGE: 400,
  HELP_SHOWN: 200,
} as const;

export type ErrorCode = keyof typeof ErrorCodes;

export interface RestbusErrorOptions extends ErrorOptions {
  /** Headers the answer carries beside the error body: Allow for a 405, WWW-Authenticate for a 401 (one a scheme)... */
  headers?: Readonly<Record<string, string | string[]>>;
  /** Fields the error body carries after `error` and `code`: the `problems` of a REQUEST_INVALID... */
  details?: Readonly<Record<string, unknown>>;
}

/** One thing wrong with a request: where (`query.limit`, `path.id`, `header.x-key`, `body/name`) and what. */
export interface RequestProblem {
  location: string;
  message: string;
}

export class RestbusError extends Error {
  readonly code: ErrorCode;
  readonly status: number;
  readonly headers: Readonly<Record<string, string | string[]>>;
  readonly details?: Readonly<Record<string, unknown>>;

  constructor(code: ErrorCode, message: string, options?: RestbusErrorOptions) {
    super(message, options);
    this.name = 'RestbusError';
    this.code = code;
    this.status = ErrorCodes[code];
    this.headers = options?.headers ?? {};
    if (options?.details) this.details = options.details;
  }
}

export function isRestbusError(value: unknown): value is RestbusError {
  return value instanceof RestbusError;
}
