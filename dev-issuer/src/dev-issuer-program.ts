import {
  logFormatSetting,
  logLevelSetting,
  readPackageVersion,
  type LogFormat,
  type ProgramSpec,
} from '@restbus/infra';

export interface DevIssuerConfig {
  port: number;
  host: string;
  /** The `iss` of its tokens and the base of its discovery document; `http://localhost:<port>` when absent. */
  issuer?: string;
  /** The `aud` of a token whose request names none. */
  audience?: string;
  logLevel: string;
  logFormat?: LogFormat;
}

/**
 * An issuer URL as OpenID Connect Discovery takes one: http(s), no query, no fragment, no credentials. The gateway
 * finds the discovery document under it and compares the document's `issuer` with it.
 */
export function checkIssuerUrl(value: unknown): string | undefined {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return 'is not a URL';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http or https URL';
  if (url.search || url.hash || url.username || url.password) {
    return 'must name no query, fragment or credentials (tokens carry it as their iss)';
  }
  return undefined;
}

export const devIssuerProgram: ProgramSpec = {
  name: 'restbus-dev-issuer',
  version: readPackageVersion(__dirname),
  description:
    'An OpenID Connect issuer for development (oauth2-mock-server): discovery, a key set, and a token endpoint that signs a token for anyone who asks. Never for production.',
  settings: [
    {
      key: 'port',
      flags: '-p, --port <port>',
      env: 'DEV_ISSUER_PORT',
      description: 'HTTP port',
      schema: { type: 'integer', minimum: 0, maximum: 65535, default: 8080 },
    },
    {
      key: 'host',
      flags: '--host <address>',
      env: 'DEV_ISSUER_HOST',
      description: 'the address it listens on (0.0.0.0 in a container)',
      schema: { type: 'string', minLength: 1, maxLength: 255, default: '127.0.0.1' },
    },
    {
      key: 'issuer',
      flags: '--issuer <url>',
      env: 'DEV_ISSUER_URL',
      description:
        'the iss of its tokens and where its discovery document is, as the gateway reaches it (e.g. http://oidc-issuer:8080 in compose)',
      defaultText: 'http://localhost:<port>',
      schema: { type: 'string', minLength: 1, maxLength: 2048 },
      check: checkIssuerUrl,
    },
    {
      key: 'audience',
      flags: '--audience <aud>',
      env: 'DEV_ISSUER_AUDIENCE',
      description: 'the aud of a token whose request names none (an API that checks its audience accepts it)',
      schema: { type: 'string', minLength: 1, maxLength: 512 },
    },
    logLevelSetting,
    logFormatSetting,
  ],
};
