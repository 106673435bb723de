import type { ApiOperation } from '@restbus/openapi';

/**
 * The statuses counted as themselves on any route: what the gateway, the mock and restbus services answer on their
 * own. A status outside them and outside the operation's declared ones is counted by its class (`2xx` … `9xx`).
 */
export const COUNTED_STATUSES: ReadonlySet<number> = new Set([
  200, 201, 204, 304, 400, 401, 403, 404, 405, 406, 408, 409, 413, 415, 422, 429, 500, 501, 502, 503, 504,
]);

/**
 * The methods an OpenAPI document can declare: on paths it does not describe (`unmatched`, `static`) a method is
 * counted as itself when it is one of them.
 */
export const DECLARABLE_METHODS: ReadonlySet<string> = new Set([
  'GET',
  'PUT',
  'POST',
  'DELETE',
  'OPTIONS',
  'HEAD',
  'PATCH',
  'TRACE',
]);

/** The one value every method that no operation on the path declares is counted under. */
export const OTHER_METHOD = 'other';

/** How a call was routed, as far as its labels care (the route table's lookup kinds, and a static folder). */
export type RoutedAs = 'found' | 'options' | 'method-not-allowed' | 'not-found' | 'bad-path' | 'static';

/**
 * The method label of a call: the request's method where the route serves it (a declared one, HEAD for a GET,
 * OPTIONS), `other` on a described path that does not serve it. Taken from the request as it is, Node's ~35 methods
 * times every route would each grow a histogram.
 */
export function labelMethod(routedAs: RoutedAs, method: string): string {
  switch (routedAs) {
    case 'found':
      return method;
    case 'options':
      return 'OPTIONS';
    case 'method-not-allowed':
      return OTHER_METHOD;
    default:
      return DECLARABLE_METHODS.has(method) ? method : OTHER_METHOD;
  }
}

const NO_STATUSES: ReadonlySet<number> = new Set();
const declaredByOperation = new WeakMap<ApiOperation, ReadonlySet<number>>();

/** The statuses `operation` declares by number (its `2XX` ranges and `default` are no one status); read once. */
export function listDeclaredStatuses(operation: ApiOperation | undefined): ReadonlySet<number> {
  if (!operation) return NO_STATUSES;
  let statuses = declaredByOperation.get(operation);
  if (!statuses) {
    statuses = new Set(operation.responses.filter((r) => /^\d{3}$/.test(r.status)).map((r) => Number(r.status)));
    declaredByOperation.set(operation, statuses);
  }
  return statuses;
}

/**
 * The status label of a call: the status when it is in the fixed set or `declared`, else its class. A client that
 * can pick the status (the mock's `Prefer: code=` on a `default` response, a service that echoes one) grows no
 * series beyond the classes.
 */
export function labelStatus(status: number, declared: ReadonlySet<number>): string {
  if (COUNTED_STATUSES.has(status) || declared.has(status)) return String(status);
  return `${Math.floor(status / 100)}xx`;
}
