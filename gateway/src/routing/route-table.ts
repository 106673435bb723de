import { createMessagePrefix, toTopic, type EndpointDesc } from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';
import { PathTree, splitPath } from './path-tree';
import type { RequestCheck } from '../validation/create-request-validator';

/** An endpoint with everything a call needs computed once, at load. */
export interface CompiledEndpoint {
  desc: EndpointDesc;
  file: string;
  topic: string;
  /** Parameter names of the template, in order. */
  paramNames: string[];
  /** The request message up to its `request` value: the part that is the same for every call. */
  messagePrefix: string;
  /** With --validate: the check of its calls against the operation (absent when its schemas did not compile). */
  validate?: RequestCheck;
  /** The loaded operation it was compiled from: what the mock (-m) answers from. */
  source: ApiEndpoint;
}

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

function compile(endpoint: ApiEndpoint, topicPrefix: string, validate?: RequestCheck): CompiledEndpoint {
  const { desc } = endpoint;
  const topic = toTopic(topicPrefix, desc.method, desc.uri);
  return {
    validate,
    desc,
    source: endpoint,
    file: endpoint.file,
    topic,
    paramNames: [...desc.uri.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]),
    messagePrefix: createMessagePrefix(topic, desc),
  };
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
export function createRouteTable(
  endpoints: readonly ApiEndpoint[],
  options: { basePath: string; topicPrefix: string; checks?: ReadonlyMap<ApiEndpoint, RequestCheck> },
): RouteTable {
  const tree = new PathTree<RouteEntry>();
  const compiled = endpoints.map((endpoint) => compile(endpoint, options.topicPrefix, options.checks?.get(endpoint)));
  const entries = new Set<RouteEntry>();
  for (const endpoint of compiled) {
    const entry = tree.upsert(endpoint.desc.uri, () => ({
      template: endpoint.desc.uri,
      methods: new Map(),
      allow: '',
    }));
    entry.methods.set(endpoint.desc.method.toUpperCase(), endpoint);
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
