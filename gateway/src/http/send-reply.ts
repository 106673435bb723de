import {
  maxHeaderSize,
  STATUS_CODES,
  validateHeaderName,
  validateHeaderValue,
  type OutgoingHttpHeaders,
  type ServerResponse,
} from 'node:http';
import { defaultContentType, isJsonMediaType, RestbusError, type ResponseMessage } from '@restbus/infra';

// Framing is the gateway's business: a reply must not dictate these.
const HOP_BY_HOP = new Set(['content-length', 'transfer-encoding', 'connection', 'keep-alive', 'upgrade', 'trailer']);

/**
 * A response head larger than Node's header limit (16 KiB unless --max-http-header-size says otherwise) is refused
 * by clients on the same default (fetch, undici, Node's http): better a 502 than a response nobody can read.
 * The allowance is for what Node adds after us: status line, `date`, `connection`, `keep-alive`.
 */
const MAX_HEAD_BYTES = maxHeaderSize;
const NODE_HEAD_ALLOWANCE = 256;

/** Text and JSON types get `charset=utf-8` when they name none, as Express (and so upstream easer) does. */
function withCharset(type: string): string {
  if (/;\s*charset=/i.test(type)) return type;
  return /^text\//i.test(type.trim()) || isJsonMediaType(type) ? `${type}; charset=utf-8` : type;
}

const quoteName = (name: string): string => JSON.stringify(name.length > 64 ? `${name.slice(0, 64)}…` : name);

function checkHeader(name: string, value: string | string[]): void {
  try {
    validateHeaderName(name);
    for (const item of Array.isArray(value) ? value : [value]) validateHeaderValue(name, item);
  } catch (err) {
    // Node's message quotes the value; the reply's content stays out of the answer.
    throw new RestbusError('BAD_REPLY', `the reply header ${quoteName(name)} is not a valid HTTP header`, {
      cause: err,
    });
  }
}

function headerBytes(name: string, value: OutgoingHttpHeaders[string]): number {
  if (value === undefined) return 0;
  let bytes = 0;
  for (const item of Array.isArray(value) ? value : [value]) bytes += name.length + 4 + Buffer.byteLength(String(item));
  return bytes;
}

function headBytes(headers: OutgoingHttpHeaders): number {
  let bytes = NODE_HEAD_ALLOWANCE;
  for (const [name, value] of Object.entries(headers)) bytes += headerBytes(name, value);
  return bytes;
}

function checkStatus(status: number): void {
  // 1xx are interim: written as the final answer they leave the client waiting for one that never comes.
  if (!Number.isInteger(status) || status < 200 || status > 599) {
    throw new RestbusError('BAD_REPLY', `the reply carries status ${status}, which cannot end an HTTP response`);
  }
}

function toText(body: unknown): string {
  try {
    return JSON.stringify(body);
  } catch (err) {
    // JSON.parse reads any depth, JSON.stringify recurses: a deeply nested body parses and cannot be written.
    throw new RestbusError(
      'BAD_REPLY',
      'the reply body cannot be serialised as JSON (nested too deeply or too large)',
      {
        cause: err,
      },
    );
  }
}

/**
 * A reply made ready to be written: checked, its headers lower-cased and framed (`content-type` with its charset,
 * `content-length`), its body text or bytes. The same answer can be written to many responses (the mock's are kept
 * per operation and request shape): only the gateway's own headers differ between them.
 */
export interface HttpAnswer {
  status: number;
  headers: OutgoingHttpHeaders;
  body?: string | Uint8Array;
  /** The head's size in bytes without the gateway's own headers, counted once. */
  headBytes: number;
}

/**
 * Makes a reply an HTTP answer: status 200 when absent; no body for null/absent bodies and for 204/304; a string or
 * bytes verbatim (text/plain or application/octet-stream unless the reply names a type); any other JSON value as
 * JSON. Throws a `BAD_REPLY` RestbusError when the reply cannot be an HTTP response: a status outside 200–599,
 * headers HTTP cannot carry, a body JSON cannot write.
 */
export function toHttpAnswer(reply: ResponseMessage): HttpAnswer {
  const status = reply.status ?? 200;
  checkStatus(status);
  // No prototype: a reply header named `__proto__` or `constructor` is just a header.
  const headers: OutgoingHttpHeaders = Object.create(null);
  let type: string | undefined;
  for (const [name, raw] of Object.entries(reply.headers ?? {})) {
    const lower = name.toLowerCase();
    if (HOP_BY_HOP.has(lower) || lower === 'date') continue;
    const value = typeof raw === 'number' ? String(raw) : raw;
    checkHeader(name, value);
    if (lower === 'content-type') type = String(value);
    else headers[lower] = value;
  }
  const body = reply.body;
  let text: string | Uint8Array | undefined;
  if (status !== 204 && status !== 304 && body !== undefined && body !== null) {
    if (body instanceof Uint8Array) {
      // A body that travelled apart from its head: the service's bytes, under the type it named.
      text = body;
      type ??= 'application/octet-stream';
    } else {
      text = typeof body === 'string' ? body : toText(body);
      type ??= defaultContentType(body);
    }
  }
  if (type !== undefined) headers['content-type'] = withCharset(type);
  if (text !== undefined) headers['content-length'] = typeof text === 'string' ? Buffer.byteLength(text) : text.length;
  else if (status !== 204 && status !== 304) headers['content-length'] = 0;
  return { status, headers, body: text, headBytes: headBytes(headers) };
}

/**
 * Writes an answer as the HTTP response. The gateway's own headers (`ownHeaders`, and `date`) win over the
 * answer's; `vary` is merged so neither side's cache key is lost. Throws a `BAD_REPLY` RestbusError, before anything
 * is written to `res`, when the head would be larger than a client accepts.
 */
export function writeHttpAnswer(res: ServerResponse, answer: HttpAnswer, ownHeaders: OutgoingHttpHeaders): void {
  const bare: OutgoingHttpHeaders = Object.create(null);
  const headers = Object.assign(bare, ownHeaders);
  let size = answer.headBytes;
  for (const name in ownHeaders) size += headerBytes(name, ownHeaders[name]);
  for (const name in answer.headers) {
    if (!Object.hasOwn(headers, name)) headers[name] = answer.headers[name];
    else if (name === 'vary') headers.vary = `${String(headers.vary)}, ${String(answer.headers.vary)}`;
  }
  if (size > MAX_HEAD_BYTES) {
    throw new RestbusError(
      'BAD_REPLY',
      `the reply headers are too large: the response head would be about ${size} bytes, over the ${MAX_HEAD_BYTES} an HTTP client accepts`,
    );
  }
  // The reason phrase is named so that it always matches the status written.
  res.writeHead(answer.status, STATUS_CODES[answer.status] ?? 'Unknown', headers);
  res.end(answer.body);
}

/**
 * Writes a reply as the HTTP response (toHttpAnswer, then writeHttpAnswer). Throws a `BAD_REPLY` RestbusError,
 * before anything is written to `res`, when the reply cannot be an HTTP response.
 */
export function sendReply(res: ServerResponse, reply: ResponseMessage, ownHeaders: OutgoingHttpHeaders): void {
  writeHttpAnswer(res, toHttpAnswer(reply), ownHeaders);
}
