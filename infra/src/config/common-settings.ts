import type { SettingSpec } from './load-config';

/** Settings every restbus program takes, with the same flags and variables everywhere. */
export const natsUriSetting: SettingSpec = {
  key: 'natsUri',
  flags: '-n, --natsUri <uri>',
  env: 'NATS_URL',
  description: 'NATS server URL',
  schema: { type: 'string', minLength: 1, default: 'nats://localhost:4222' },
};

export const topicPrefixSetting: SettingSpec = {
  key: 'topicPrefix',
  flags: '--topicPrefix <prefix>',
  env: 'TOPIC_PREFIX',
  description: 'prefix of the request subjects (upstream easer default)',
  // A prefix is one or more subject tokens: no wildcards, no whitespace, no empty token.
  schema: { type: 'string', pattern: '^[^\\s.*>]+(\\.[^\\s.*>]+)*$', default: 'easer' },
};

export const logLevelSetting: SettingSpec = {
  key: 'logLevel',
  flags: '-l, --logLevel <level>',
  env: 'LOG_LEVEL',
  description: 'pino log level',
  schema: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
};
