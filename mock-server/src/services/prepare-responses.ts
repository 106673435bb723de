import { validateHeaderName, validateHeaderValue } from 'node:http';
import { serialize } from 'cookie';
import { isEventStreamType, type MethodDescriptor } from '@restbus/project-format';

/** The response a request gets when it names none (X-Mock-Response), and a fallback answers with. */
export const DEFAULT_RESPONSE = 'OK';

/** A declared response, ready to send: status, headers and cookies checked once, at load. */
export interface PreparedResponse {
  name: string;
  status: number;
  headers: Array<[string, string]>;
  cookies: string[];
  /** The declared Content-Type, if any. */
  declaredType?: string;
  mockBody?: string;
  /** `Content-Type: text/event-stream`: the mock file holds the events, sent one at a time (answerEventStream). */
  stream: boolean;
}

// Headers about the connection and the framing of the body: the server sets them for what it really sends. A
// descriptor's `Transfer-Encoding: chunked` beside the computed Content-Length would make the answer unreadable.
export const SET_BY_THE_SERVER: ReadonlySet<string> = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  'content-length',
]);

const isStatus = (status: number): boolean => Number.isInteger(status) && status >= 200 && status <= 599;

// OpenAPI's `default` and ranges (`4XX`), as `rest-tool import-oas` keeps them: a mock answers the range's first
// status, and `default` (the answer for any other status, in practice an error) as 500.
const RANGE = /^([2-5])XX$/i;

/** The status to send, or undefined when the value is none (then 200 is sent, with a warning). */
const toStatus = (value: unknown): number | undefined => {
  const text = String(value).trim();
  if (text === 'default') return 500;
  const range = RANGE.exec(text);
  if (range) return Number(range[1]) * 100;
  const status = Number(text);
  return text !== '' && isStatus(status) ? status : undefined;
};

/**
 * Turns a method's `responses` into what the server sends. A header or cookie Node would refuse is left out
 * and reported, rather than failing every request of the service.
 */
export function prepareResponses(
  method: MethodDescriptor,
  where: string,
  warn: (message: string) => void,
): Map<string, PreparedResponse> {
  const prepared = new Map<string, PreparedResponse>();
  for (const response of method.responses) {
    const { name } = response;
    const headers: Array<[string, string]> = [];
    let declaredType: string | undefined;
    for (const { field, content } of response.headers ?? []) {
      if (SET_BY_THE_SERVER.has(field.toLowerCase())) {
        warn(
          `${where}: response ${name}: header ${JSON.stringify(field)} is set by the server for what it sends; left out`,
        );
        continue;
      }
      try {
        validateHeaderName(field);
        validateHeaderValue(field, content);
        if (field.toLowerCase() === 'content-type') declaredType = content;
        else headers.push([field, content]);
      } catch {
        warn(`${where}: response ${name}: header ${JSON.stringify(field)} is not a valid HTTP header; left out`);
      }
    }
    const cookies: string[] = [];
    for (const { field, content } of response.cookies ?? []) {
      try {
        cookies.push(serialize(field, content, { path: '/' }));
      } catch {
        warn(`${where}: response ${name}: cookie ${JSON.stringify(field)} is not a valid cookie; left out`);
      }
    }
    const status = toStatus(response.statusCode);
    if (status === undefined) {
      warn(`${where}: response ${name}: statusCode ${JSON.stringify(response.statusCode)} is not 200-599; 200 is sent`);
    }
    prepared.set(name, {
      name,
      status: status ?? 200,
      headers,
      cookies,
      declaredType,
      stream: isEventStreamType(declaredType),
      mockBody: typeof response.mockBody === 'string' && response.mockBody ? response.mockBody : undefined,
    });
  }
  return prepared;
}
