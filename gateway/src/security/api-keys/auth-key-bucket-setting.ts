import type { SettingSpec } from '@restbus/infra';

/** The API key bucket: the gateway reads it, `restbus-gateway keys` writes it. */
export const authKeyBucketSetting: SettingSpec = {
  key: 'authKeyBucket',
  flags: '--authKeyBucket <bucket>',
  aliases: ['--auth-key-bucket'],
  env: 'GATEWAY_AUTH_KEY_BUCKET',
  description:
    'with --auth verify, the NATS key-value bucket of the API keys apiKey schemes accept (restbus-gateway keys writes it)',
  schema: { type: 'string', pattern: '^[-_A-Za-z0-9]{1,64}$', default: 'restbus_api_keys' },
};
