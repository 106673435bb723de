import type { Socket } from 'node:net';
import { ErrorCodes, type ErrorCode } from '@restbus/infra';

/**
 * Answers what Node's HTTP parser rejects (an unknown method, a malformed request line, headers too large) with a
 * JSON error like every other gateway failure, instead of Node's bare `400 Bad Request`, then closes the socket.
 */
export function answerClientError(err: NodeJS.ErrnoException, socket: Socket): void {
  if (!socket.writable || (err as { code?: string }).code === 'ECONNRESET') {
    socket.destroy();
    return;
  }
  const code: ErrorCode =
    err.code === 'HPE_HEADER_OVERFLOW'
      ? 'HEADERS_TOO_LARGE'
      : err.code === 'ERR_HTTP_REQUEST_TIMEOUT'
        ? 'REQUEST_TIMEOUT'
        : 'BAD_REQUEST';
  const message =
    code === 'HEADERS_TOO_LARGE'
      ? 'the request headers are too large'
      : code === 'REQUEST_TIMEOUT'
        ? 'the request took too long to arrive'
        : 'the request is not valid HTTP';
  const body = JSON.stringify({ error: message, code });
  const status = ErrorCodes[code];
  socket.end(
    `HTTP/1.1 ${status} ${code === 'HEADERS_TOO_LARGE' ? 'Request Header Fields Too Large' : code === 'REQUEST_TIMEOUT' ? 'Request Timeout' : 'Bad Request'}\r\n` +
      `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}

/** CONNECT is not something a REST gateway tunnels: answer 405 instead of Node's silent close. */
export function refuseConnect(_req: unknown, socket: Socket): void {
  const body = JSON.stringify({ error: 'CONNECT is not supported', code: 'METHOD_NOT_ALLOWED' });
  socket.end(
    `HTTP/1.1 405 Method Not Allowed\r\ncontent-type: application/json; charset=utf-8\r\n` +
      `content-length: ${Buffer.byteLength(body)}\r\nconnection: close\r\n\r\n${body}`,
  );
}
