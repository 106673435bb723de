import { STATUS_CODES } from 'node:http';
import { connect } from 'node:net';

export interface RawResponse {
  status: number;
  /** The reason phrase of the status line, e.g. `Bad Gateway`. */
  reason: string;
  headers: Record<string, string>;
  body: string;
}

/** Sends raw bytes to a server and reads one HTTP response (the server closes the connection after it). */
export function sendRaw(port: number, request: string | Buffer, timeoutMs = 5000): Promise<RawResponse> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    const timer = setTimeout(() => {
      socket.destroy();
      reject(
        new Error(`no complete response within ${timeoutMs} ms to ${JSON.stringify(String(request).slice(0, 80))}`),
      );
    }, timeoutMs);
    socket.on('data', (chunk: Buffer) => chunks.push(chunk));
    // The server may close while we are still writing a body it refused; the response is what counts.
    socket.on('error', () => undefined);
    socket.on('close', () => {
      clearTimeout(timer);
      const text = Buffer.concat(chunks).toString('latin1');
      const split = text.indexOf('\r\n\r\n');
      const head = /^HTTP\/1\.1 (\d{3}) ([^\r\n]*)/.exec(text);
      if (!head || split < 0) {
        reject(
          new Error(
            `not an HTTP response: ${JSON.stringify(text.slice(0, 200))} to ${JSON.stringify(String(request).slice(0, 80))}`,
          ),
        );
        return;
      }
      const headers: Record<string, string> = {};
      for (const line of text.slice(0, split).split('\r\n').slice(1)) {
        const colon = line.indexOf(':');
        headers[line.slice(0, colon).trim().toLowerCase()] = line.slice(colon + 1).trim();
      }
      resolve({
        status: Number(head[1]),
        reason: head[2],
        headers,
        body: Buffer.from(text.slice(split + 4), 'latin1').toString('utf8'),
      });
    });
    socket.write(request);
  });
}

export interface RawExchange {
  /** Everything the server wrote, as latin1 text, up to the end of its first final (non-1xx) response. */
  text: string;
  /** The server closed the connection without writing a byte. */
  closedSilently: boolean;
  /** No complete answer within the time allowed. */
  timedOut: boolean;
}

/** Where a response that starts at `from` ends, or -1 while it is incomplete. */
function endOfResponse(text: string, from: number, isHead: boolean): number {
  const split = text.indexOf('\r\n\r\n', from);
  if (split < 0) return -1;
  const head = text.slice(from, split);
  const status = Number(/^HTTP\/1\.[01] (\d{3})/.exec(head)?.[1]);
  const start = split + 4;
  if (isHead || status === 204 || status === 304 || (status >= 100 && status < 200)) return start;
  const length = /\r\ncontent-length:\s*(\d+)/i.exec(head);
  if (length) return text.length >= start + Number(length[1]) ? start + Number(length[1]) : -1;
  if (/\r\ntransfer-encoding:\s*chunked/i.test(head)) {
    const last = text.indexOf('\r\n0\r\n\r\n', start - 2);
    return last < 0 ? -1 : last + 7;
  }
  return -1; // the body ends when the connection does
}

/**
 * Sends raw bytes (and, with `halfClose`, ends the sending side) and reads the first final response, skipping
 * interim 1xx ones, without requiring the server to close a kept-alive connection.
 */
export function exchangeRaw(
  port: number,
  request: string | Buffer,
  options: { halfClose?: boolean; timeoutMs?: number } = {},
): Promise<RawExchange> {
  const isHead = Buffer.from(request.slice(0, 5)).toString('latin1') === 'HEAD ';
  return new Promise((resolve) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    let from = 0;
    let settled = false;
    const settle = (result: Omit<RawExchange, 'text'>): void => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      socket.destroy();
      resolve({ text, ...result });
    };
    const timer = setTimeout(() => settle({ closedSilently: false, timedOut: true }), options.timeoutMs ?? 5000);
    socket.on('data', (chunk: Buffer) => {
      text += chunk.toString('latin1');
      for (;;) {
        const end = endOfResponse(text, from, isHead);
        if (end < 0) return;
        if (!/^HTTP\/1\.[01] 1\d\d/.test(text.slice(from))) {
          text = text.slice(0, end);
          settle({ closedSilently: false, timedOut: false });
          return;
        }
        from = end;
      }
    });
    socket.on('error', () => undefined);
    socket.on('close', () => settle({ closedSilently: text.length === 0, timedOut: false }));
    // Byte for byte: a character below 256 is one byte, as a hostile client would send it.
    socket.write(typeof request === 'string' ? Buffer.from(request, 'latin1') : request);
    if (options.halfClose) socket.end();
  });
}

/**
 * What is wrong with an error answer (4xx/5xx) as a restbus edge must give it: the status's own reason phrase, a
 * JSON content type and an `{error, code}` body (a HEAD answer has no body to look at). Empty when nothing is.
 */
export function findErrorAnswerProblems(
  code: number,
  reason: string,
  head: string,
  body: string,
  isHead: boolean,
): string[] {
  const problems: string[] = [];
  if (reason !== (STATUS_CODES[code] ?? reason)) problems.push(`status line "${code} ${reason}"`);
  if (!head.includes('\r\ncontent-type: application/json')) problems.push(`${code} not JSON`);
  if (isHead) return problems;
  try {
    const parsed = JSON.parse(body) as { error?: unknown; code?: unknown };
    if (typeof parsed.error !== 'string' || typeof parsed.code !== 'string') {
      problems.push(`${code} body ${body.slice(0, 80)}`);
    }
  } catch {
    problems.push(`${code} body not JSON: ${JSON.stringify(body.slice(0, 80))}`);
  }
  return problems;
}
