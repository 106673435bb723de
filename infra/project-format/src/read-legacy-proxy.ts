import type { YamlFile } from './read-yaml-file';
import type { EnvironmentSettings, ServerConfig } from './types';

/** The older rest-tool layout's proxy settings of an environment, before `remoteServices` replaced them (2014). */
export const LEGACY_PROXY_KEYS = ['useRemoteServices', 'remoteHost', 'remotePort'] as const;

export interface LegacyProxy {
  /** The `remoteServices` rule the keys amount to, when they forward at all. */
  rule?: { uri: string; host: string; port: number; active: true };
  /** One deprecation warning naming the file, the line and the modern equivalent. */
  warning?: string;
  /** Why the keys cannot be read (`file:line: pointer: message`, as every project problem is worded). */
  problem?: string;
}

const escapePointer = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');
// A host YAML reads back as the same string; an IPv6 address (`::1`) needs quotes.
const toYamlScalar = (text: string): string => (/^[\w.-]+$/.test(text) ? text : JSON.stringify(text));
const listed = (names: readonly string[]): string =>
  names.length < 2 ? names.join('') : `${names.slice(0, -1).join(', ')} and ${names[names.length - 1]}`;

/**
 * Reads `useRemoteServices`, `remoteHost` and `remotePort` of the selected environment (`default` merged with it;
 * their types are checked by the schema). Upstream's server, with `useRemoteServices: true`, forwarded every call
 * under `serviceUrlPrefix` (`^<prefix>/`) to `remoteHost:remotePort` before its own routes, and served everything
 * else (static folders) itself: the same as one active rule with `uri: /`, placed after the environment's own
 * `remoteServices` so that those still decide first.
 */
export function readLegacyProxy(
  environment: EnvironmentSettings & { name: string },
  server: ServerConfig,
  serverConfig: YamlFile,
): LegacyProxy {
  const present = LEGACY_PROXY_KEYS.filter((key) => environment[key] !== undefined);
  // `useRemoteServices: false` alone, as rest-tool 0.5 wrote it into every project, forwards nothing either way.
  if (present.length === 0 || (present.length === 1 && environment.useRemoteServices === false)) return {};
  const own: object = Object.hasOwn(server.environments, environment.name) ? server.environments[environment.name] : {};
  // Where the selected environment got the key: its own entry, else `default`.
  const pointerOf = (key: string): string =>
    `/environments/${escapePointer(Object.hasOwn(own, key) ? environment.name : 'default')}/${key}`;
  const at = (key: string): string => `${serverConfig.name}:${serverConfig.lineOf(pointerOf(key))}: ${pointerOf(key)}`;
  const host = environment.remoteHost;
  const port = environment.remotePort;
  const equivalent =
    `remoteServices: [{ uri: /, host: ${host === undefined ? '<remoteHost>' : toYamlScalar(host)}, ` +
    `port: ${port ?? '<remotePort>'}, active: true }]`;
  const plural = present.length > 1;
  const these = `${listed(present)} ${plural ? 'are' : 'is'}`;

  if (environment.useRemoteServices !== true) {
    return {
      warning:
        `${at(present[0])}: ${these} the older rest-tool layout, deprecated, and ${plural ? 'forward' : 'forwards'} ` +
        `nothing without useRemoteServices: true; remove ${plural ? 'them' : 'it'}, or write ${equivalent} to ` +
        'forward every call under serviceUrlPrefix',
    };
  }
  if (host === undefined || port === undefined) {
    const missing = (['remoteHost', 'remotePort'] as const).filter((key) => environment[key] === undefined);
    return {
      problem:
        `${at('useRemoteServices')}: is true but ${listed(missing)} ${missing.length > 1 ? 'are' : 'is'} not set: ` +
        `it forwards every call under serviceUrlPrefix to remoteHost:remotePort; or write ${equivalent}`,
    };
  }
  return {
    rule: { uri: '/', host, port, active: true },
    warning:
      `${at('useRemoteServices')}: ${these} the older rest-tool layout, deprecated; read as ${equivalent} ` +
      '(every call under serviceUrlPrefix forwarded), which is what to write instead',
  };
}
