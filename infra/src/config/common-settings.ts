import type { SettingSpec } from './load-config';
import { checkNatsUrls } from '../nats/check-nats-urls';
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
