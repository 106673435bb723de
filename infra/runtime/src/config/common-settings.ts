import type { SettingSpec } from './load-config';
import { RestbusError } from '../errors/restbus-error';
import { checkCredsFile } from '../nats/check-creds-file';
import { checkNatsUrls } from '../nats/check-nats-urls';
import { checkCaFile, checkCertFile, checkKeyFile, checkKeyPair } from '../nats/check-tls-files';
import type { NatsLinkOptions } from '../nats/create-nats-link';
import { toNatsServersAndAuth } from '../nats/nats-connect-options';
import { DEFAULT_HTTP_LIMITS, type HttpLimits } from '../http/create-http-server';

/** Settings every restbus program takes, with the same flags and variables everywhere. */
export const natsUriSetting: SettingSpec = {
  key: 'natsUri',
  flags: '-n, --natsUri <uri>',
  aliases: ['--nats-uri'],
  env: 'NATS_URL',
  description: 'NATS server URL, or several separated by commas (a cluster)',
  schema: { type: 'string', minLength: 1, default: 'nats://localhost:4222' },
  check: checkNatsUrls,
};

export const natsCredsSetting: SettingSpec = {
  key: 'natsCreds',
  flags: '--natsCreds <file>',
  aliases: ['--nats-creds'],
  env: 'NATS_CREDS',
  description: 'NATS credentials file (user JWT and nkey seed) for decentralised auth; read again at every connect',
  schema: { type: 'string', minLength: 1 },
  check: checkCredsFile,
};

export const natsCaSetting: SettingSpec = {
  key: 'natsCa',
  flags: '--natsCa <file>',
  aliases: ['--nats-ca'],
  env: 'NATS_CA',
  description: "CA certificates (PEM) that verify the NATS servers instead of the system's; requires TLS",
  schema: { type: 'string', minLength: 1 },
  check: checkCaFile,
};

export const natsCertSetting: SettingSpec = {
  key: 'natsCert',
  flags: '--natsCert <file>',
  aliases: ['--nats-cert'],
  env: 'NATS_CERT',
  description: 'client certificate (PEM) for NATS servers that verify clients (mutual TLS); needs --natsKey',
  schema: { type: 'string', minLength: 1 },
  check: checkCertFile,
};

export const natsKeySetting: SettingSpec = {
  key: 'natsKey',
  flags: '--natsKey <file>',
  aliases: ['--nats-key'],
  env: 'NATS_KEY',
  description: 'private key (PEM, unencrypted) of the --natsCert client certificate',
  schema: { type: 'string', minLength: 1 },
  check: checkKeyFile,
};

export const natsTlsSetting: SettingSpec = {
  key: 'natsTls',
  flags: '--natsTls',
  aliases: ['--nats-tls'],
  env: 'NATS_TLS',
  description:
    'refuse a NATS server that offers no TLS; implied by --natsCa, --natsCert and tls:// URLs; without any of ' +
    'them, TLS only when the server requires it',
  schema: { type: 'boolean', default: false },
};

/** How a program connects to NATS, as the settings below leave it in its config. */
export interface NatsConnectionConfig {
  natsUri: string;
  natsCreds?: string;
  natsCa?: string;
  natsCert?: string;
  natsKey?: string;
  natsTls?: boolean;
}

/** The settings of the NATS connection, defined once here: every program that connects takes all of them. */
export const natsConnectionSettings: readonly SettingSpec[] = [
  natsUriSetting,
  natsCredsSetting,
  natsCaSetting,
  natsCertSetting,
  natsKeySetting,
  natsTlsSetting,
];

/** How an error names a setting, as loadConfig does: its long flag and its variable. */
const nameOf = (setting: SettingSpec): string =>
  `${setting.flags.split(/[ ,]+/).find((flag) => flag.startsWith('--'))} / ${setting.env}`;

/**
 * The servers, TLS files and credentials file createNatsLink takes, from those settings. Checks what one setting's
 * own check cannot: a certificate needs its key (and the key must be its key), and a credentials file excludes a
 * user or token in the URL; a `CONFIG_INVALID` error (exit 2) names the settings and the files, never their content.
 */
export function toNatsLinkOptions(
  config: NatsConnectionConfig,
): Pick<NatsLinkOptions, 'servers' | 'tls' | 'credsFile'> {
  const invalid = (problem: string): RestbusError =>
    new RestbusError('CONFIG_INVALID', `invalid configuration: ${problem}`);
  if (config.natsCert !== undefined && config.natsKey === undefined)
    throw invalid(
      `${nameOf(natsCertSetting)}: needs ${nameOf(natsKeySetting)} (got ${JSON.stringify(config.natsCert)})`,
    );
  if (config.natsKey !== undefined && config.natsCert === undefined)
    throw invalid(
      `${nameOf(natsKeySetting)}: needs ${nameOf(natsCertSetting)} (got ${JSON.stringify(config.natsKey)})`,
    );
  if (config.natsCert !== undefined && config.natsKey !== undefined) {
    const problem = checkKeyPair(config.natsCert, config.natsKey);
    if (problem !== undefined)
      throw invalid(`${nameOf(natsKeySetting)}: ${problem} ${config.natsCert} (got ${JSON.stringify(config.natsKey)})`);
  }
  if (config.natsCreds !== undefined) {
    const auth = toNatsServersAndAuth(config.natsUri);
    if (auth.user !== undefined || auth.token !== undefined)
      throw invalid(
        `${nameOf(natsCredsSetting)}: a user or token in ${nameOf(natsUriSetting)} as well; give one or the other ` +
          `(got ${JSON.stringify(config.natsCreds)})`,
      );
  }
  const tlsFiles = {
    ...(config.natsCa !== undefined ? { caFile: config.natsCa } : {}),
    ...(config.natsCert !== undefined ? { certFile: config.natsCert } : {}),
    ...(config.natsKey !== undefined ? { keyFile: config.natsKey } : {}),
  };
  return {
    servers: config.natsUri,
    ...(config.natsTls || Object.keys(tlsFiles).length > 0 ? { tls: tlsFiles } : {}),
    ...(config.natsCreds !== undefined ? { credsFile: config.natsCreds } : {}),
  };
}

export const topicPrefixSetting: SettingSpec = {
  key: 'topicPrefix',
  flags: '--topicPrefix <prefix>',
  aliases: ['--topic-prefix'],
  env: 'TOPIC_PREFIX',
  description: 'prefix of the request subjects (upstream easer default)',
  // A prefix is one or more subject tokens: no wildcards, no whitespace, no empty token.
  schema: { type: 'string', pattern: '^[^\\s.*>]+(\\.[^\\s.*>]+)*$', default: 'easer' },
};

export const inboxPrefixSetting: SettingSpec = {
  key: 'inboxPrefix',
  flags: '--inboxPrefix <prefix>',
  aliases: ['--inbox-prefix'],
  env: 'NATS_INBOX_PREFIX',
  description:
    'subjects below this prefix are the only ones replies are sent to (and where this program gets its own replies)',
  schema: { type: 'string', pattern: '^[^\\s.*>]+(\\.[^\\s.*>]+)*$', default: '_INBOX' },
};

export const logLevelSetting: SettingSpec = {
  key: 'logLevel',
  flags: '-l, --log-level <level>',
  // easer's spelling, still accepted so that its command lines keep working.
  aliases: ['--logLevel'],
  env: 'LOG_LEVEL',
  description: 'log level',
  schema: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
};

export const logFormatSetting: SettingSpec = {
  key: 'logFormat',
  flags: '--log-format <format>',
  env: 'LOG_FORMAT',
  description: 'pretty: lines for a person (time, level, component, message); json: a JSON object per line',
  // No default in the schema: main.ts decides, because only it knows whether standard output is a terminal.
  defaultText: 'pretty on a terminal and json otherwise',
  schema: { enum: ['pretty', 'json'] },
};

/** The HTTP limits of an edge server (gateway, mock server) as settings: `--headers-timeout`, `--request-timeout`, `--max-connections`. */
export interface HttpLimitConfig {
  headersTimeout: number;
  requestTimeout: number;
  maxConnections: number;
}

/** The three HTTP limit settings, with variables under the program's prefix (e.g. `GATEWAY_REQUEST_TIMEOUT_MS`). */
export function createHttpLimitSettings(envPrefix: string): SettingSpec[] {
  return [
    {
      key: 'headersTimeout',
      flags: '--headers-timeout <ms>',
      aliases: ['--headersTimeout'],
      env: `${envPrefix}_HEADERS_TIMEOUT_MS`,
      description: 'time for the request line and headers to arrive (408 after it); at most the request timeout',
      schema: { type: 'integer', minimum: 1, maximum: 600000, default: DEFAULT_HTTP_LIMITS.headersTimeoutMs },
    },
    {
      key: 'requestTimeout',
      flags: '--request-timeout <ms>',
      aliases: ['--requestTimeout'],
      env: `${envPrefix}_REQUEST_TIMEOUT_MS`,
      description: 'time for the whole request, body included, to arrive (408 after it)',
      schema: { type: 'integer', minimum: 1, maximum: 3600000, default: DEFAULT_HTTP_LIMITS.requestTimeoutMs },
    },
    {
      key: 'maxConnections',
      flags: '--max-connections <n>',
      aliases: ['--maxConnections'],
      env: `${envPrefix}_MAX_CONNECTIONS`,
      description: 'open HTTP connections at most; further ones are closed at once',
      schema: { type: 'integer', minimum: 1, maximum: 1000000, default: DEFAULT_HTTP_LIMITS.maxConnections },
    },
  ];
}

/** The limits createHttpServer takes, from those settings (absent ones keep the defaults). */
export function toHttpLimits(config: Partial<HttpLimitConfig>): Partial<HttpLimits> {
  return {
    ...(config.headersTimeout === undefined ? {} : { headersTimeoutMs: config.headersTimeout }),
    ...(config.requestTimeout === undefined ? {} : { requestTimeoutMs: config.requestTimeout }),
    ...(config.maxConnections === undefined ? {} : { maxConnections: config.maxConnections }),
  };
}
