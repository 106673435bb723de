import { join } from 'node:path';
import {
  createHttpLimitSettings,
  logFormatSetting,
  logLevelSetting,
  readPackageVersion,
  type HttpLimitConfig,
  type LogFormat,
  type ProgramSpec,
  type SettingSpec,
} from '@restbus/infra';
import { DEFAULT_STATE_MEMORY } from '../services/stateful/create-state-budget';

export interface MockCommandLine extends HttpLimitConfig {
  environment?: string;
  project?: string;
  port?: number;
  host: string;
  watch: boolean;
  check: boolean;
  strict: boolean;
  validate: boolean;
  validateUnchecked?: string[];
  bodyLimit: number;
  stateMemory: number;
  eventInterval: number;
  logLevel: string;
  logFormat?: LogFormat;
}

const version = readPackageVersion(join(__dirname, '..'));

const environmentArgument = {
  key: 'environment',
  name: '[environment]',
  description: 'environment of server/config.yml (default: its useEnvironment)',
};

/** Where and how the program listens: the same settings for serving and for recording. */
const listenSettings: SettingSpec[] = [
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
];

/**
 * The word that makes the command line a recording: `restbus-mock record [environment] --target <url> …`. loadConfig
 * knows no subcommands and the first positional is otherwise the environment, so main.ts takes a first argument
 * `record` as the mode. An environment named `record` is still served with `restbus-mock -- record`.
 */
export const RECORD_COMMAND = 'record';

/** restbus-mock's command line: `restbus-mock [environment] [--project <dir>] [--port <n>] …`. */
export const mockProgram: ProgramSpec = {
  name: 'restbus-mock',
  version,
  description:
    'Serves a REST API project from its service.yml descriptors, static folders and proxy rules; ' +
    '`restbus-mock record --target <url>` records one from a running server instead (see `restbus-mock record --help`)',
  arguments: [environmentArgument],
  settings: [
    ...listenSettings,
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
      key: 'validateUnchecked',
      flags: '--validate-unchecked <route...>',
      env: 'MOCK_VALIDATE_UNCHECKED',
      description:
        'with validation, serve these routes ("METHOD /uriTemplate" as the descriptor writes it) with their bodies ' +
        'unchecked when their request schema cannot be used; otherwise such a route keeps the server from starting',
      schema: { type: 'array', items: { type: 'string', minLength: 1 } },
    },
    {
      key: 'bodyLimit',
      flags: '--body-limit <bytes>',
      env: 'MOCK_BODY_LIMIT',
      description: 'largest request body an implementation function gets (413 above)',
      schema: { type: 'integer', minimum: 0, maximum: 64 * 1024 * 1024, default: 1024 * 1024 },
    },
    {
      key: 'stateMemory',
      flags: '--state-memory <bytes>',
      env: 'MOCK_STATE_MEMORY',
      description:
        'what all stateful collections and sessions may hold together, in estimated bytes of memory; past it the ' +
        'sessions used longest ago give way, then writes answer 507',
      schema: {
        type: 'integer',
        minimum: 1024 * 1024,
        maximum: 16 * 1024 * 1024 * 1024,
        default: DEFAULT_STATE_MEMORY,
      },
    },
    {
      key: 'eventInterval',
      flags: '--event-interval <ms>',
      env: 'MOCK_EVENT_INTERVAL',
      description:
        'between two events of an event stream (a response declaring Content-Type: text/event-stream sends the ' +
        'items of its mock file one at a time)',
      schema: { type: 'integer', minimum: 10, maximum: 3_600_000, default: 1000 },
    },
    ...createHttpLimitSettings('MOCK'),
    logLevelSetting,
    logFormatSetting,
  ],
};

export interface RecordCommandLine extends HttpLimitConfig {
  environment?: string;
  target?: string;
  project?: string;
  port?: number;
  host: string;
  recordSecrets: boolean;
  logLevel: string;
  logFormat?: LogFormat;
}

/** Why a record target cannot be used, or undefined: an http(s) URL with a host, no query and no fragment. */
export function findTargetProblem(value: unknown): string | undefined {
  let url: URL;
  try {
    url = new URL(String(value));
  } catch {
    return 'must be a URL such as http://localhost:8080';
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return 'must be an http:// or https:// URL';
  if (!url.hostname) return 'must name a host';
  if (url.search || url.hash) return 'must not have a query or a fragment';
  return undefined;
}

/** `restbus-mock record [environment] --target <url> [--project <dir>] [--port <n>] [--record-secrets] …`. */
export const recordProgram: ProgramSpec = {
  name: `restbus-mock ${RECORD_COMMAND}`,
  version,
  description:
    'Forwards every call to a running server and answers with its answers; each route under serviceUrlPrefix that ' +
    'the project does not describe yet is written into the project (service.yml and mock file), never over a file',
  arguments: [environmentArgument],
  settings: [
    {
      key: 'target',
      flags: '--target <url>',
      description: 'the server to forward to and record from, e.g. http://localhost:8080',
      defaultText: "the environment's record.target in server/config.yml",
      schema: { type: 'string', minLength: 1 },
      check: findTargetProblem,
    },
    ...listenSettings,
    {
      key: 'recordSecrets',
      flags: '--record-secrets',
      description:
        'also record Authorization, Proxy-Authorization, Cookie and Set-Cookie, and response headers named like a ' +
        'token, key or session; they are forwarded either way',
      defaultText: "the environment's record.recordSecrets, else false",
      schema: { type: 'boolean', default: false },
    },
    ...createHttpLimitSettings('MOCK'),
    logLevelSetting,
    logFormatSetting,
  ],
};
