import Ajv from 'ajv';
import { Command, CommanderError, Option } from 'commander';
import { RestbusError } from '../errors/restbus-error';

/** One setting of a program: its flag, its environment variable and the JSON schema of its value. */
export interface SettingSpec {
  key: string;
  /** Commander flags, e.g. `-p, --port <port>`; a flag without `<value>` is a boolean switch. */
  flags: string;
  env?: string;
  description: string;
  schema: Record<string, unknown>;
  /** A setting without a default that must be given. */
  required?: boolean;
}

export interface ProgramSpec {
  name: string;
  version: string;
  description: string;
  settings: readonly SettingSpec[];
}

export interface LoadConfigOptions {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Where help and usage errors are written; stdout/stderr when absent. */
  output?: { writeOut(text: string): void; writeErr(text: string): void };
}

/** Thrown instead of exiting when the command line asks for help or a version, or is unusable. */
export class CommandLineExit extends Error {
  constructor(
    readonly exitCode: number,
    message: string,
  ) {
    super(message);
    this.name = 'CommandLineExit';
  }
}

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

function createCommand(spec: ProgramSpec, options: LoadConfigOptions): Command {
  const command = new Command(spec.name)
    .description(spec.description)
    .version(spec.version, '-V, --version')
    .helpOption('-h, --help')
    .allowExcessArguments(false)
    .exitOverride();
  if (options.output) command.configureOutput(options.output);
  for (const setting of spec.settings) {
    const defaultValue = (setting.schema as { default?: unknown }).default;
    const suffix = [
      setting.env ? `env ${setting.env}` : undefined,
      defaultValue === undefined ? undefined : `default ${JSON.stringify(defaultValue)}`,
    ].filter(Boolean);
    const description = suffix.length ? `${setting.description} (${suffix.join(', ')})` : setting.description;
    command.addOption(new Option(setting.flags, description));
  }
  return command;
}

/**
 * Reads a program's settings from its flags and environment (flags win), fills defaults, validates and
 * coerces them with ajv against each setting's schema, and returns them deep-frozen.
 * Help and version requests, and unusable command lines, surface as {@link CommandLineExit};
 * invalid values as a `CONFIG_INVALID` {@link RestbusError} naming the flag and the variable.
 */
export function loadConfig<T>(spec: ProgramSpec, options: LoadConfigOptions): Readonly<T> {
  const command = createCommand(spec, options);
  try {
    command.parse(options.argv as string[], { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) throw new CommandLineExit(err.exitCode, err.message);
    throw err;
  }
  const flags = command.opts<Record<string, unknown>>();
  const values: Record<string, unknown> = {};
  for (const setting of spec.settings) {
    const fromEnv = setting.env ? options.env[setting.env] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') values[setting.key] = fromEnv;
    if (flags[setting.key] !== undefined) values[setting.key] = flags[setting.key];
  }
  const schema = {
    type: 'object',
    additionalProperties: false,
    required: spec.settings.filter((setting) => setting.required).map((setting) => setting.key),
    properties: Object.fromEntries(spec.settings.map((setting) => [setting.key, setting.schema])),
  };
  // 'array' also turns a single value from the environment into a one-item list for list settings.
  const ajv = new Ajv({ allErrors: true, coerceTypes: 'array', useDefaults: true, strict: false });
  const validate = ajv.compile(schema);
  if (!validate(values)) {
    const problems = (validate.errors ?? []).map((error) => {
      const key =
        (error.params as { missingProperty?: string }).missingProperty ?? error.instancePath.split('/')[1] ?? '';
      const setting = spec.settings.find((candidate) => candidate.key === key);
      const name = setting
        ? [setting.flags.split(/[ ,]+/).find((f) => f.startsWith('--')), setting.env].filter(Boolean).join(' / ')
        : key;
      if (error.keyword === 'required') return `${name} is required`;
      return `${name}: ${error.message ?? 'is invalid'} (got ${JSON.stringify(values[key])})`;
    });
    throw new RestbusError('CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`);
  }
  return deepFreeze(values as T);
}
