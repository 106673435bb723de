import { RestbusError } from '../errors/restbus-error';
import { isRestbusError } from '../errors/restbus-error';
import { findInvalidSettings } from '../testing/find-invalid-schemas';
import { serviceSettings } from '../executive/create-executive';
import { kvReplicasSetting, readsSetting, storeSetting } from '../store/open-store';
import { createHttpLimitSettings } from './common-settings';
import { loadConfig, type ProgramSpec } from './load-config';

interface Config {
  port: number;
  topicPrefix: string;
  forward: boolean;
}

const spec: ProgramSpec = {
  name: 'demo',
  version: '1.2.3',
  description: 'a demo program',
  settings: [
    {
      key: 'port',
      flags: '-p, --port <port>',
      env: 'DEMO_PORT',
      description: 'port',
      schema: { type: 'integer', minimum: 0, maximum: 65535, default: 3007 },
    },
    {
      key: 'topicPrefix',
      flags: '--topicPrefix <prefix>',
      env: 'TOPIC_PREFIX',
      description: 'prefix',
      schema: { type: 'string', minLength: 1, default: 'easer' },
    },
    {
      key: 'forward',
      flags: '-u, --forward',
      env: 'DEMO_FORWARD',
      description: 'forward',
      schema: { type: 'boolean', default: false },
    },
  ],
};

const silent = { writeOut: () => undefined, writeErr: () => undefined };
const load = (argv: string[], env: Record<string, string> = {}): Readonly<Config> =>
  loadConfig<Config>(spec, { argv, env, output: silent });

describe('loadConfig', () => {
  it('fills the defaults when neither flags nor environment say anything', () => {
    expect(load([])).toEqual({ port: 3007, topicPrefix: 'easer', forward: false });
  });

  it('reads and coerces environment variables', () => {
    expect(load([], { DEMO_PORT: '4000', DEMO_FORWARD: 'true', TOPIC_PREFIX: 'x' })).toEqual({
      port: 4000,
      topicPrefix: 'x',
      forward: true,
    });
  });

  it('lets flags win over environment variables', () => {
    expect(load(['-p', '5000', '--topicPrefix', 'flag'], { DEMO_PORT: '4000', TOPIC_PREFIX: 'env' })).toMatchObject({
      port: 5000,
      topicPrefix: 'flag',
    });
  });

  it('returns a frozen object', () => {
    expect(Object.isFrozen(load([]))).toBe(true);
  });

  it('names the flag, the variable and the value of an invalid setting', () => {
    expect(() => load(['-p', '70000'])).toThrow(/--port \/ DEMO_PORT: must be <= 65535 \(got 70000\)/);
    expect(() => load([], { DEMO_PORT: 'abc' })).toThrow(RestbusError);
  });

  it('collects a repeated list flag, and takes a single value from the environment as a one-item list', () => {
    const withList: ProgramSpec = {
      ...spec,
      settings: [
        {
          key: 'files',
          flags: '-r, --files <path...>',
          env: 'DEMO_FILES',
          description: 'files',
          schema: { type: 'array', items: { type: 'string' } },
        },
      ],
    };
    const loadList = (argv: string[], env: Record<string, string> = {}) =>
      loadConfig<{ files: string[] }>(withList, { argv, env, output: silent });
    expect(loadList(['-r', 'a.yml', '-r', 'b.yml']).files).toEqual(['a.yml', 'b.yml']);
    expect(loadList(['-r', 'a.yml', 'b.yml']).files).toEqual(['a.yml', 'b.yml']);
    expect(loadList([], { DEMO_FILES: 'c.yml' }).files).toEqual(['c.yml']);
  });

  it('names a required setting that is missing', () => {
    const withRequired: ProgramSpec = {
      ...spec,
      settings: [
        ...spec.settings,
        {
          key: 'api',
          flags: '-r, --api <path>',
          env: 'DEMO_API',
          description: 'api',
          schema: { type: 'string' },
          required: true,
        },
      ],
    };
    expect(() => loadConfig(withRequired, { argv: [], env: {}, output: silent })).toThrow(
      '--api / DEMO_API is required',
    );
  });

  it('ends with exit code 0 for --help and --version, and 2 for a command line it does not understand', () => {
    const exitOf = (argv: string[]): number | undefined => {
      try {
        load(argv);
      } catch (err) {
        if (!isRestbusError(err)) return -1;
        return err.code === 'HELP_SHOWN' ? 0 : err.code === 'USAGE' ? 2 : -1;
      }
      return undefined;
    };
    expect(exitOf(['--help'])).toBe(0);
    expect(exitOf(['--version'])).toBe(0);
    expect(exitOf(['--nope'])).toBe(2);
    expect(exitOf(['--port'])).toBe(2);
    expect(exitOf(['extra'])).toBe(2);
  });

  it('lists the allowed values of a setting in its help and in the error for another value', () => {
    const withChoice: ProgramSpec = {
      ...spec,
      settings: [
        {
          key: 'color',
          flags: '--color <color>',
          env: 'DEMO_COLOR',
          description: 'the colour',
          schema: { enum: ['red', 'green'], default: 'red' },
        },
      ],
    };
    let help = '';
    const output = { writeOut: (text: string) => (help += text), writeErr: () => undefined };
    expect(() => loadConfig(withChoice, { argv: ['--help'], env: {}, output })).toThrow(
      expect.objectContaining({ code: 'HELP_SHOWN' }),
    );
    expect(help).toContain('the colour (one of red|green, env DEMO_COLOR, default "red")');
    expect(() => loadConfig(withChoice, { argv: [], env: { DEMO_COLOR: 'blue' }, output })).toThrow(
      '--color / DEMO_COLOR: must be one of red|green (got "blue")',
    );
  });

  it('accepts the hidden aliases of a setting, which help leaves out', () => {
    const withAlias: ProgramSpec = {
      ...spec,
      settings: [{ ...spec.settings[1], flags: '--topic-prefix <prefix>', aliases: ['--topicPrefix'] }],
    };
    let help = '';
    const output = { writeOut: (text: string) => (help += text), writeErr: () => undefined };
    const loadWith = (argv: string[]) => loadConfig<Config>(withAlias, { argv, env: {}, output });
    expect(loadWith(['--topicPrefix', 'old']).topicPrefix).toBe('old');
    expect(loadWith(['--topic-prefix', 'new']).topicPrefix).toBe('new');
    expect(() => loadWith(['--help'])).toThrow(expect.objectContaining({ code: 'HELP_SHOWN' }));
    expect(help).toContain('--topic-prefix <prefix>');
    expect(help).not.toContain('--topicPrefix');
  });

  it('refuses a spec whose flag would be stored under another name than its key', () => {
    const mismatched: ProgramSpec = { ...spec, settings: [{ ...spec.settings[0], aliases: ['--listen-port'] }] };
    expect(() => loadConfig(mismatched, { argv: [], env: {}, output: silent })).toThrow(
      'the flag --listen-port <port> is stored as listenPort, not as port',
    );
  });

  it('returns positional arguments under their keys, and nothing for one not given', () => {
    const withArgument: ProgramSpec = {
      ...spec,
      arguments: [{ key: 'environment', name: '[environment]', description: 'environment' }],
    };
    const loadWith = (argv: string[]) =>
      loadConfig<Config & { environment?: string }>(withArgument, { argv, env: {}, output: silent });
    expect(loadWith(['staging', '-p', '1']).environment).toBe('staging');
    expect(loadWith([]).environment).toBeUndefined();
  });
});

describe('the settings schema a program is checked against', () => {
  it('is reported when a setting declares a schema JSON Schema refuses, since loadConfig no longer checks it', () => {
    const broken: ProgramSpec = {
      ...spec,
      settings: [{ key: 'port', flags: '-p, --port <port>', description: 'port', schema: { type: 'integr' } }],
    };
    expect(findInvalidSettings(broken)).toEqual([expect.stringContaining('demoSettingsSchema')]);
    expect(findInvalidSettings(spec)).toEqual([]);
  });

  it('is a valid JSON schema for a NATS service: every common setting and the store settings', () => {
    const service: ProgramSpec = {
      name: 'service',
      version: '0.0.0',
      description: 'a service',
      settings: [
        ...serviceSettings,
        storeSetting,
        kvReplicasSetting,
        readsSetting,
        ...createHttpLimitSettings('SERVICE'),
      ],
    };
    expect(findInvalidSettings(service)).toEqual([]);
  });
});
