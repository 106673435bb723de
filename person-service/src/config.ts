import { readPackageVersion, type ProgramSpec } from '@restbus/infra';

export interface PersonServiceConfig {
  natsUri: string;
  topicPrefix: string;
  logLevel: string;
}

export const personServiceProgram: ProgramSpec = {
  name: 'person-service',
  version: readPackageVersion(__dirname),
  description: 'Answers the person API request messages that the gateway sends over NATS.',
  settings: [
    {
      key: 'natsUri',
      flags: '-n, --natsUri <uri>',
      env: 'NATS_URL',
      description: 'NATS server URL',
      schema: { type: 'string', minLength: 1, default: 'nats://localhost:4222' },
    },
    {
      key: 'topicPrefix',
      flags: '--topicPrefix <prefix>',
      env: 'TOPIC_PREFIX',
      description: 'prefix of the request subjects',
      schema: { type: 'string', pattern: '^[^\\s*>]+$', default: 'easer' },
    },
    {
      key: 'logLevel',
      flags: '-l, --logLevel <level>',
      env: 'LOG_LEVEL',
      description: 'pino log level',
      schema: { enum: ['fatal', 'error', 'warn', 'info', 'debug', 'trace', 'silent'], default: 'info' },
    },
  ],
};
