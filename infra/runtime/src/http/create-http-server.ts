import { createServer, STATUS_CODES, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { Socket } from 'node:net';
import { ErrorCodes, type ErrorCode } from '../errors/restbus-error';
import { sendError } from './send-error';
import { formatErrorBody } from './send-error';

/** How long a client may take and how many may be connected: the defaults suit an API server, not file uploads. */
export interface HttpLimits {
  /** Time for the request line and headers to arrive (Node's `headersTimeout`). */
  headersTimeoutMs: number;
  /** Time for the whole request, body included, to arrive (Node's `requestTimeout`): a trickled body ends here. */
  requestTimeoutMs: number;
  /** Idle time of a kept-alive connection between requests. */
  keepAliveTimeoutMs: number;
  /** Open connections at most; further ones are closed at once. */
  maxConnections: number;
}

export const DEFAULT_HTTP_LIMITS: HttpLimits = {
  headersTimeoutMs: 10_000,
  requestTimeoutMs: 30_000,
  keepAliveTimeoutMs: 5_000,
  maxConnections: 10_000,
};

export interface CreateHttpServerOptions<
  Request extends typeof IncomingMessage = typeof IncomingMessage,
  Response extends typeof ServerResponse<InstanceType<Request>> = typeof ServerResponse,
> {
  limits?: Partial<HttpLimits>;
  /** Request and response classes (Express passes its own). */
  IncomingMessage?: Request;
  ServerResponse?: Response;
}

/** A raw HTTP/1.1 answer on a socket Node has not made a request of: JSON like every other restbus error. */
function endSocket(socket: Socket, status: number, code: ErrorCode, message: string): void {
  const body = formatErrorBody(code, message);
  socket.end(
    `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/**
 * Answers what Node's HTTP parser rejects (a malformed request line, headers too large, a request too slow to
 * arrive) with a JSON error instead of Node's bare one, then closes the socket.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || err.code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  if (err.code === 'HPE_HEADER_OVERFLOW') {
    endSocket(socket, ErrorCodes.HEADERS_TOO_LARGE, 'HEADERS_TOO_LARGE', 'the request headers are too large');
  } else if (err.code === 'ERR_HTTP_REQUEST_TIMEOUT' || err.code === 'ERR_HTTP_HEADERS_TIMEOUT') {
    endSocket(socket, ErrorCodes.REQUEST_TIMEOUT, 'REQUEST_TIMEOUT', 'the request took too long to arrive');
  } else {
    endSocket(socket, ErrorCodes.BAD_REQUEST, 'BAD_REQUEST', 'the request is not valid HTTP');
  }
}

/** CONNECT is not something a REST server tunnels: answer 405 instead of Node's silent close. */
function refuseConnect(_req: IncomingMessage, socket: Socket): void {
  // Node takes its own error listener off a CONNECT's socket: a client that resets it would end the process.
  socket.on('error', () => undefined);
  endSocket(socket, 405, 'METHOD_NOT_ALLOWED', 'CONNECT is not supported');
}

/**
 * An HTTP server for a restbus edge (the gateway, the mock server): bounded in time and connections, and every
 * answer Node would make on its own (bad request line, missing Host, an `Expect` it cannot meet, CONNECT) is the
 * JSON `{error, code}` body instead of a bare status line.
 */
export function createHttpServer<
  Request extends typeof IncomingMessage = typeof IncomingMessage,
  Response extends typeof ServerResponse<InstanceType<Request>> = typeof ServerResponse,
>(
  listener: (req: InstanceType<Request>, res: InstanceType<Response>) => void,
  options: CreateHttpServerOptions<Request, Response> = {},
): Server<Request, Response> {
  const limits = { ...DEFAULT_HTTP_LIMITS, ...options.limits };
  const server = createServer<Request, Response>(
    {
      IncomingMessage: options.IncomingMessage,
      ServerResponse: options.ServerResponse,
      // Node refuses a headers timeout above the request timeout; the headers are part of the request anyway.
      headersTimeout: Math.min(limits.headersTimeoutMs, limits.requestTimeoutMs),
      requestTimeout: limits.requestTimeoutMs,
      keepAliveTimeout: limits.keepAliveTimeoutMs,
      // Node checks the two timeouts above on this interval (30 s by default, which would stretch them).
      connectionsCheckingInterval: Math.max(50, Math.min(1000, Math.floor(limits.headersTimeoutMs / 4))),
      // Node answers a missing Host with a bare 400 before any listener sees the request: do it here, in JSON.
      requireHostHeader: false,
    },
    (req, res) => {
      if (req.httpVersionMajor === 1 && req.httpVersionMinor === 1 && req.headers.host === undefined) {
        res.shouldKeepAlive = false;
        sendError(res as ServerResponse, 'BAD_REQUEST', 'an HTTP/1.1 request needs a Host header');
        return;
      }
      listener(req, res);
    },
  );
  server.maxConnections = limits.maxConnections;
  server.on('clientError', answerClientError);
  server.on('connect', refuseConnect);
  server.on('checkExpectation', (_req: IncomingMessage, res: ServerResponse) => {
    res.shouldKeepAlive = false;
    sendError(res, 'EXPECTATION_FAILED', 'the only expectation this server meets is 100-continue');
  });
  return server;
}
