import { join } from 'node:path';
import {
  natsConnectionSettings,
  readPackageVersion,
  type NatsConnectionConfig,
  type ProgramSpec,
} from '@restbus/infra';
import { authKeyBucketSetting } from './auth-key-bucket-setting';

export const KEY_ACTIONS = ['create', 'list', 'revoke'] as const;

export interface KeysConfig extends NatsConnectionConfig {
  action: string;
  /** create: who the key is for; revoke: the name (every key of it) or a key's id. */
  name?: string;
  authKeyBucket: string;
  /** create: what the key grants. */
  scopes?: string[];
}

/** `restbus-gateway keys`: the API keys every gateway of a NATS cluster accepts for apiKey schemes. */
export const keysProgram: ProgramSpec = {
  name: 'restbus-gateway keys',
  // The gateway's version: its package.json is beside dist/ (src/ under ts-jest), two folders up from here.
  version: readPackageVersion(join(__dirname, '..', '..')),
  description:
    'Creates (the key is shown once), lists and revokes the API keys gateways with --auth verify accept for apiKey schemes; kept hashed in a NATS key-value bucket every gateway watches.',
  arguments: [
    { key: 'action', name: '<action>', description: `${KEY_ACTIONS.join(', ')}` },
    {
      key: 'name',
      name: '[name]',
      description: "create: who the key is for; revoke: a name (all its keys) or a key's id",
    },
  ],
  settings: [
    ...natsConnectionSettings,
    authKeyBucketSetting,
    {
      key: 'scopes',
      flags: '--scopes <scope...>',
      env: 'GATEWAY_KEY_SCOPES',
      description: 'create: the scopes (or roles) the key grants, as a token grants them',
      schema: {
        type: 'array',
        maxItems: 100,
        items: { type: 'string', minLength: 1, maxLength: 200, pattern: '^\\S+$' },
      },
    },
  ],
};
