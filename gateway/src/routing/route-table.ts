import { createMessagePrefix } from '@restbus/infra';
import type { AnsweredEndpoint, CallAnswer, CompiledEndpoint } from '../call/call';
import type { ApiEndpoint } from '../openapi/endpoint';
import { PathTree, splitPath } from './path-tree';
import type { RequestCheck } from '../validation/create-request-validator';
import type { CallPolicy } from '../security/call-policy';

interface RouteEntry {
  /** The path template, as the first endpoint on it spells it (templates on one path can name parameters apart). */
  template: string;
  methods: Map<string, CompiledEndpoint>;
  /** The `Allow` header: the described methods, HEAD with GET, and OPTIONS. */
  allow: string;
}

export type Lookup =
  | { kind: 'found'; endpoint: CompiledEndpoint; params: Record<string, string> }
  | { kind: 'options'; allow: string; template: string }
  | { kind: 'method-not-allowed'; allow: string; template: string }
  | { kind: 'not-found' }
  | { kind: 'bad-path' };

export interface RouteTable {
  readonly endpoints: readonly CompiledEndpoint[];
  /** Finds the endpoint for a method (upper case, as Node gives it) and a path without query. */
  lookup(method: string, path: string): Lookup;
}

export interface RouteTableOptions {
  basePath: string;
  /** With --validate: the check of each endpoint's calls (compileRequestChecks). */
  checks?: ReadonlyMap<ApiEndpoint, RequestCheck>;
  /** With --auth: each secured endpoint's policy (compileSecurity). */
  policies?: ReadonlyMap<ApiEndpoint, CallPolicy>;
  /** How an endpoint's calls are answered (createCallAnswers), chosen once per endpoint. */
  answerFor(endpoint: AnsweredEndpoint): CallAnswer;
}

function compile(endpoint: ApiEndpoint, options: RouteTableOptions): CompiledEndpoint {
  const { path } = endpoint.model;
  // `<topicPrefix>.<method>_<path>` or the operation's x-restbus-subject, made and checked at load (checkRoutes):
  // where a generated service listens.
  const topic = endpoint.model.subject;
  const compiled: AnsweredEndpoint = {
    validate: options.checks?.get(endpoint),
    policy: options.policies?.get(endpoint),
    desc: endpoint.desc,
    source: endpoint,
    file: endpoint.file,
    topic,
    paramNames: [...path.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]),
    messagePrefix: createMessagePrefix(topic, endpoint.desc),
  };
  return { ...compiled, answer: options.answerFor(compiled) };
}

function toAllow(methods: Iterable<string>): string {
  const names = new Set([...methods].map((method) => method.toUpperCase()));
  if (names.has('GET')) names.add('HEAD');
  names.add('OPTIONS');
  return [...names].sort().join(', ');
}

function decodeSegments(path: string): string[] | undefined {
  const segments = splitPath(path);
  for (let i = 0; i < segments.length; i++) {
    const segment = segments[i];
    if (!segment.includes('%')) continue;
    try {
      segments[i] = decodeURIComponent(segment);
    } catch {
      return undefined;
    }
  }
  return segments;
}

/**
 * Compiles the endpoints into a path tree under `basePath`. Lookups answer which endpoint serves a call, or why
 * none does: an unknown path, a method the API does not describe (with `Allow`), an OPTIONS request. A described
 * path is named by its template whatever the method, so that the metrics label it as its other calls.
 */
export function createRouteTable(endpoints: readonly ApiEndpoint[], options: RouteTableOptions): RouteTable {
  const tree = new PathTree<RouteEntry>();
  const compiled = endpoints.map((endpoint) => compile(endpoint, options));
  const entries = new Set<RouteEntry>();
  for (const endpoint of compiled) {
    const { method, path } = endpoint.source.model;
    const entry = tree.upsert(path, () => ({ template: path, methods: new Map(), allow: '' }));
    entry.methods.set(method.toUpperCase(), endpoint);
    entries.add(entry);
  }
  for (const entry of entries) entry.allow = toAllow(entry.methods.keys());

  const base = options.basePath.replace(/\/+$/, '');
  const baseLower = base.toLowerCase();

  return {
    endpoints: compiled,
    lookup(method, path) {
      let local = path;
      if (base) {
        if (!path.toLowerCase().startsWith(baseLower) || (path.length > base.length && path[base.length] !== '/')) {
          return { kind: 'not-found' };
        }
        local = path.length === base.length ? '/' : path.slice(base.length);
      }
      const segments = decodeSegments(local);
      if (!segments) return { kind: 'bad-path' };
      const match = tree.match(segments);
      if (!match) return { kind: 'not-found' };
      const entry = match.value;
      const endpoint = entry.methods.get(method) ?? (method === 'HEAD' ? entry.methods.get('GET') : undefined);
      if (!endpoint) {
        return {
          kind: method === 'OPTIONS' ? 'options' : 'method-not-allowed',
          allow: entry.allow,
          template: entry.template,
        };
      }
      const params: Record<string, string> = {};
      for (let i = 0; i < endpoint.paramNames.length; i++) params[endpoint.paramNames[i]] = match.values[i];
      return { kind: 'found', endpoint, params };
    },
  };
}
