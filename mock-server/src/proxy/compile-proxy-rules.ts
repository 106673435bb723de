import { readErrorMessage, RestbusError } from '@restbus/infra';
import type { Environment } from '@restbus/project-format';

export interface ProxyTarget {
  /** `http://host:port` of the first matching active rule. */
  target: string;
  /** The rule's `uri`, for the log. */
  uri: string;
}

export interface ProxyRules {
  /** Where a request path goes, or undefined to serve it here. */
  targetOf(path: string): ProxyTarget | undefined;
}

/**
 * Compiles `remoteServices` and `proxyException` once. A rule's `uri` is a regular expression anchored right after
 * `serviceUrlPrefix`: `/rest/users` can match, `/restaurant` and `/static/rest/x` cannot (upstream matched the
 * pattern anywhere in the URL, query included). The first rule whose `uri` matches decides: when it is not
 * `active` the request stays here. Rules, exceptions and the prefix match the normalised path (see normalisePath)
 * without regard to case, as the services do, so that no spelling reaches the remote past an exception.
 */
export function compileProxyRules(environment: Environment, serviceUrlPrefix: string): ProxyRules {
  const prefix = serviceUrlPrefix.replace(/\/$/, '');
  const compile = (uri: string, where: string): RegExp => {
    try {
      // Without regard to case, as the services match: `/REST/Monitoring/isAlive` is the excepted path too.
      return new RegExp(`^(?:${uri})`, 'i');
    } catch (err) {
      throw new RestbusError(
        'PROJECT_INVALID',
        `server/config.yml: environment ${environment.name}: ${where}: ${JSON.stringify(uri)} is not a valid regular expression (${readErrorMessage(err)})`,
      );
    }
  };
  const rules = environment.remoteServices.map((rule, index) => ({
    pattern: compile(rule.uri, `remoteServices[${index}].uri`),
    uri: rule.uri,
    active: rule.active === true,
    target: `http://${rule.host.includes(':') ? `[${rule.host}]` : rule.host}:${rule.port}`,
  }));
  const exceptions = environment.proxyException.active
    ? (environment.proxyException.urlPrefixList ?? []).map((uri, index) =>
        compile(uri, `proxyException.urlPrefixList[${index}]`),
      )
    : [];
  if (!rules.some((rule) => rule.active)) return { targetOf: () => undefined };

  return {
    targetOf(path) {
      const folded = path.slice(0, prefix.length).toLowerCase();
      if (folded !== prefix.toLowerCase() || (path.length > prefix.length && path[prefix.length] !== '/')) {
        return undefined;
      }
      const rest = path.slice(prefix.length);
      if (exceptions.some((exception) => exception.test(rest))) return undefined;
      const rule = rules.find((candidate) => candidate.pattern.test(rest));
      return rule?.active ? { target: rule.target, uri: rule.uri } : undefined;
    },
  };
}
