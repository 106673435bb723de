import { join } from 'node:path';
import {
  createHttpLimitSettings,
  logFormatSetting,
  logLevelSetting,
  readPackageVersion,
  type HttpLimitConfig,
  type LogFormat,
  type ProgramSpec,
} from '@restbus/infra';

export interface MockCommandLine extends HttpLimitConfig {
  environment?: string;
  project?: string;
  port?: number;
  host: string;
  watch: boolean;
  check: boolean;
  strict: boolean;
  validate: boolean;
  bodyLimit: number;
  logLevel: string;
  logFormat?: LogFormat;
}

/** restbus-mock's command line: `restbus-mock [environment] [--project <dir>] [--port <n>] …`. */
export const mockProgram: ProgramSpec = {
  name: 'restbus-mock',
  version: readPackageVersion(join(__dirname, '..')),
  description: 'Serves a REST API project from its service.yml descriptors, static folders and proxy rules',
  arguments: [
    {
      key: 'environment',
      name: '[environment]',
      description: 'environment of server/config.yml (default: its useEnvironment)',
    },
  ],
  settings: [
    {
      key: 'project',
      flags: '--project <dir>',
      description: 'the project folder',
      defaultText: 'the current folder',
      schema: { type: 'string', minLength: 1 },
    },
    {
      key: 'port',
      flags: '--port <port>',
      description: 'listening port, 0 for any free one',
      defaultText: "the environment's port in server/config.yml, else the project's servicePort",
      schema: { type: 'integer', minimum: 0, maximum: 65535 },
    },
    {
      key: 'host',
      flags: '--host <host>',
      description: 'listening address',
      schema: { type: 'string', minLength: 1, default: '0.0.0.0' },
    },
    {
      key: 'watch',
      flags: '--no-watch',
      description: 'do not reload when project files change',
      // commander sets watch to true unless --no-watch is given.
      schema: { type: 'boolean' },
    },
    {
      key: 'check',
      flags: '--check',
      description: 'validate the project (files, modules, functions) and exit',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'strict',
      flags: '--strict',
      env: 'MOCK_STRICT',
      description:
        'answer 500 where an implementation cannot be loaded or a mock file is missing, instead of falling back ' +
        'to the OK mock file or the descriptor',
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'validate',
      flags: '--validate',
      env: 'MOCK_VALIDATE',
      description:
        'check requests against the descriptors (parameters, the body schema a method names) and answer 400 ' +
        "REQUEST_INVALID (default: the environment's validate)",
      schema: { type: 'boolean', default: false },
    },
    {
      key: 'bodyLimit',
      flags: '--body-limit <bytes>',
      env: 'MOCK_BODY_LIMIT',
      description: 'largest request body an implementation function gets (413 above)',
      schema: { type: 'integer', minimum: 0, maximum: 64 * 1024 * 1024, default: 1024 * 1024 },
    },
    ...createHttpLimitSettings('MOCK'),
    logLevelSetting,
    logFormatSetting,
  ],
};
