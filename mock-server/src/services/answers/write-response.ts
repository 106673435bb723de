import type { Response } from 'express';
import type { PreparedResponse } from '../prepare-responses';

/** Says, on an answer that came from a fallback, why and from what. */
export const MOCK_WARNING_HEADER = 'x-mock-warning';
const MAX_WARNING_LENGTH = 400;

// A header value must be latin-1 without control characters, or setHeader throws; a project-relative name may hold
// anything.
const toHeaderValue = (text: string): string => {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > MAX_WARNING_LENGTH ? `${printable.slice(0, MAX_WARNING_LENGTH - 3)}...` : printable;
};

/** The headers every answer of a response carries, a body or a stream: declared ones, cookies, the API version. */
export function describeHeaders(
  response: PreparedResponse | undefined,
  apiVersion: string,
  warning: string | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = Object.fromEntries(response?.headers ?? []);
  if (warning !== undefined) headers[MOCK_WARNING_HEADER] = toHeaderValue(warning);
  if (response?.cookies.length) headers['set-cookie'] = response.cookies;
  headers['x-application-api-version'] = apiVersion;
  return headers;
}

export function writeResponse(
  res: Response,
  response: PreparedResponse | undefined,
  body: Buffer | string,
  type: string,
  apiVersion: string,
  warning?: string,
): void {
  for (const [field, content] of Object.entries(describeHeaders(response, apiVersion, warning))) {
    res.setHeader(field, content);
  }
  res.setHeader('content-type', response?.declaredType ?? type);
  res.statusCode = response?.status ?? 200;
  // A 204 or 304 has no body (RFC 9110): Node sends none, and a Content-Length (the descriptor's, a mock file's) kept
  // a client on a keep-alive connection waiting for its bytes until the server closed it.
  if (res.statusCode === 204 || res.statusCode === 304) {
    res.end();
    return;
  }
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}
