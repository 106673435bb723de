import { RestbusError } from '../errors/restbus-error';
import type { IncomingRequest, QueryValue } from '../wire/types';
import type { Page, PageRequest } from './collection';

export const DEFAULT_PAGE_LIMIT = 100;
export const MAX_PAGE_LIMIT = 1000;
/** Says that an answer came from a service's copy of its store while the store could not confirm it was current. */
export const STALE_HEADER = 'x-restbus-stale';

function single(value: QueryValue | undefined, name: string): string | undefined {
  const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (one === undefined || typeof one === 'string') return one;
  throw new RestbusError('REQUEST_INVALID', `${name}: give it once, as plain text`);
}

/**
 * The page a list request asks for: `?limit=` (1 to 1000, 100 by default) values after `?cursor=` (the `next`
 * link of the page before), and never more bytes than `maxBytes`, so that the reply fits in one NATS message
 * whatever the server's max_payload.
 */
export function readPageRequest(request: IncomingRequest, maxBytes: number): PageRequest {
  const { query } = request.parameters;
  const limitText = single(query.limit, 'limit');
  const cursor = single(query.cursor, 'cursor');
  let limit = DEFAULT_PAGE_LIMIT;
  if (limitText !== undefined) {
    limit = /^\d{1,7}$/.test(limitText) ? Number(limitText) : NaN;
    if (!(limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
      throw new RestbusError('REQUEST_INVALID', `limit: a whole number from 1 to ${MAX_PAGE_LIMIT}`);
    }
  }
  return { limit, maxBytes, ...(cursor === undefined ? {} : { cursor }) };
}

/**
 * The headers of a page: a `Link` to the next one when there is more (a relative reference, `?...`, so that it
 * holds behind any base path a gateway adds), and the stale flag when the store could not confirm the list.
 */
export function describePage(page: Page<unknown>, request: PageRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  if (page.next !== undefined) {
    const query = new URLSearchParams({ limit: String(request.limit ?? DEFAULT_PAGE_LIMIT), cursor: page.next });
    headers.link = `<?${query.toString()}>; rel="next"`;
  }
  if (page.stale) headers[STALE_HEADER] = 'true';
  return headers;
}

/** Room a list reply's body may take in one NATS message: the server's max_payload less the envelope's share. */
export function measureReplyRoom(maxPayload: number | undefined): number {
  const payload = maxPayload ?? 1024 * 1024;
  return Math.max(1024, payload - Math.min(16 * 1024, payload / 8));
}
