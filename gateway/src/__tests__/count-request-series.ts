import type { ApiOperation } from '@restbus/openapi';
import { COUNTED_STATUSES, DECLARABLE_METHODS, listDeclaredStatuses } from '../observability/label-call';

/** The families whose labels a request chooses: `route`, `method` and (the counter) `status`. */
const REQUEST_FAMILIES = ['restbus_gateway_requests_total', 'restbus_gateway_request_duration_seconds'];

/** Lines per (route, method) of the duration histogram: its 13 buckets, `+Inf`, `_sum` and `_count`. */
const HISTOGRAM_LINES = 16;

/** A status's class beyond the counted ones: `1xx` … `9xx` (Node answers 100-999). */
const STATUS_CLASSES = 9;

/** The routes no operation describes: paths nothing matches, and x-static folders. */
const UNDESCRIBED_ROUTES = ['unmatched', 'static'];

/** The series of the request families in a `/-/metrics` text. */
export function countRequestSeries(text: string): { total: number; routes: Set<string> } {
  let total = 0;
  const routes = new Set<string>();
  for (const line of text.split('\n')) {
    if (!REQUEST_FAMILIES.some((family) => line.startsWith(family))) continue;
    total++;
    const route = /route="([^"]*)"/.exec(line);
    if (route) routes.add(route[1]);
  }
  return { total, routes };
}

/**
 * The most series the request families can have for a document, by the labels' rules (label-call.ts): per route
 * template, its served methods (declared, HEAD with GET, OPTIONS) and `other`, times the counted statuses, its
 * operations' declared ones and the nine classes; `unmatched` and `static` with the declarable methods.
 */
export function requestSeriesBound(operations: readonly ApiOperation[]): number {
  const byPath = new Map<string, ApiOperation[]>();
  for (const operation of operations) byPath.set(operation.path, [...(byPath.get(operation.path) ?? []), operation]);
  let bound = 0;
  const add = (methods: number, statuses: number): void => {
    bound += methods * (statuses + HISTOGRAM_LINES);
  };
  for (const onPath of byPath.values()) {
    const methods = new Set(onPath.map((operation) => operation.method.toUpperCase()));
    if (methods.has('GET')) methods.add('HEAD');
    methods.add('OPTIONS');
    const statuses = new Set(COUNTED_STATUSES);
    for (const operation of onPath) for (const status of listDeclaredStatuses(operation)) statuses.add(status);
    add(methods.size + 1, statuses.size + STATUS_CLASSES);
  }
  for (const _route of UNDESCRIBED_ROUTES) add(DECLARABLE_METHODS.size + 1, COUNTED_STATUSES.size + STATUS_CLASSES);
  return bound;
}
