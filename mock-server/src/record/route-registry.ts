import { join } from 'node:path';
import { compileUriTemplate, routeKey, type Project, type UriMatcher } from '@restbus/project-format';
import { generalisePath, type GeneralisedPath } from './generalise-path';

/** A service the project describes, or one recorded since the start. */
export interface KnownService {
  /** The `services[]` entry, e.g. `/customers/customer`. */
  entry: string;
  /** Its folder, absolute. */
  dir: string;
  uriTemplate: string;
  style?: string;
  methods: Set<string>;
  matcher: UriMatcher;
}

/** The methods service.yml can declare: the others are forwarded, never recorded. */
export const RECORDABLE_METHODS = new Set(['GET', 'PUT', 'POST', 'DELETE']);

/** What to do with a call whose answer could be recorded. */
export type RoutePlan =
  | { kind: 'described'; service: KnownService }
  /** A method the service does not declare yet: added to its service.yml. */
  | { kind: 'add'; key: string; service: KnownService; parameters: Record<string, string> }
  /** A route no service matches: a new service. */
  | { kind: 'new'; key: string; route: GeneralisedPath }
  | { kind: 'outside'; reason: string };

export interface RouteRegistry {
  /** The project's services directory, absolute. */
  servicesDir: string;
  plan(method: string, path: string): RoutePlan;
  add(service: Omit<KnownService, 'matcher'>): void;
}

/**
 * The routes the project serves, matched as the mock server matches them (case-insensitive, optional trailing
 * slash, a parameter is one segment), and the ones recorded since: a path is described when a service's template
 * matches it and declares the method.
 */
export function createRouteRegistry(project: Project): RouteRegistry {
  const prefix = project.config.serviceUrlPrefix.replace(/\/$/, '');
  const servicesDir = join(project.environment.restapiRoot, project.config.servicesRoot);
  const services: KnownService[] = project.services.map((service) => ({
    entry: service.path,
    dir: join(servicesDir, service.path),
    uriTemplate: service.descriptor.uriTemplate,
    style: service.descriptor.style,
    methods: new Set(Object.keys(service.descriptor.methods)),
    matcher: compileUriTemplate(prefix, service.descriptor.uriTemplate),
  }));

  return {
    servicesDir,
    plan(method, path) {
      if (!RECORDABLE_METHODS.has(method)) {
        return { kind: 'outside', reason: `a service.yml declares GET, PUT, POST and DELETE only, not ${method}` };
      }
      const folded = path.slice(0, prefix.length).toLowerCase();
      if (folded !== prefix.toLowerCase() || (path.length > prefix.length && path[prefix.length] !== '/')) {
        return { kind: 'outside', reason: `the path is not under serviceUrlPrefix ${prefix || '/'}` };
      }
      const matching = services.flatMap((service) => {
        const parameters = service.matcher.match(path);
        return parameters ? [{ service, parameters }] : [];
      });
      const described = matching.find(({ service }) => service.methods.has(method));
      if (described) return { kind: 'described', service: described.service };
      if (matching.length) {
        const [{ service, parameters }] = matching;
        return { kind: 'add', key: routeKey(method, service.uriTemplate), service, parameters };
      }
      const route = generalisePath(path.slice(prefix.length));
      if (!route) return { kind: 'outside', reason: 'a path segment holds { or }, which a uriTemplate cannot' };
      return { kind: 'new', key: routeKey(method, route.uriTemplate), route };
    },
    add(service) {
      const known = services.find((candidate) => candidate.dir === service.dir);
      if (known) for (const method of service.methods) known.methods.add(method);
      else services.push({ ...service, matcher: compileUriTemplate(prefix, service.uriTemplate) });
    },
  };
}
