import { RestbusError } from '../errors/restbus-error';
import type { IncomingRequest, QueryValue } from '../wire/types';
import type { Page, PageRequest } from './collection';

export const MAX_PAGE_LIMIT = 1000;
/** Says that an answer came from a service's copy of its store while the store could not confirm it was current. */
export const STALE_HEADER = 'x-restbus-stale';

function single(value: QueryValue | undefined, name: string): string | undefined {
  const one = Array.isArray(value) && value.length === 1 ? value[0] : value;
  if (one === undefined || typeof one === 'string') return one;
  throw new RestbusError('REQUEST_INVALID', `${name}: give it once, as plain text`);
}

/**
 * The page a list request asks for: the values after `?cursor=` (the `next` link of the page before), at most
 * `?limit=` of them (1 to 1000) when the client gives one, and never more bytes than `maxBytes`, so that the reply
 * fits in one NATS message whatever the server's max_payload. Without `?limit=` that is the whole collection
 * whenever it fits (the specification's `GET /persons` answers the whole collection); only a larger one is paged.
 */
export function readPageRequest(request: IncomingRequest, maxBytes: number): PageRequest {
  const { query } = request.parameters;
  const limitText = single(query.limit, 'limit');
  const cursor = single(query.cursor, 'cursor');
  const page: PageRequest = { maxBytes, ...(cursor === undefined ? {} : { cursor }) };
  if (limitText === undefined) return page;
  const limit = /^\d{1,7}$/.test(limitText) ? Number(limitText) : NaN;
  if (!(limit >= 1 && limit <= MAX_PAGE_LIMIT)) {
    throw new RestbusError('REQUEST_INVALID', `limit: a whole number from 1 to ${MAX_PAGE_LIMIT}`);
  }
  return { ...page, limit };
}

/**
 * The headers of a page: a `Link` to the next one when there is more (a relative reference, `?...`, so that it
 * holds behind any base path a gateway adds), with the client's own `limit` when it gave one, and the stale flag
 * when the store could not confirm the list.
 */
export function describePage(page: Page<unknown>, request: PageRequest): Record<string, string> {
  const headers: Record<string, string> = {};
  if (page.next !== undefined) {
    const query = new URLSearchParams(request.limit === undefined ? {} : { limit: String(request.limit) });
    query.set('cursor', page.next);
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
