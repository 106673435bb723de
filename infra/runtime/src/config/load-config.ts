import Ajv, { type ErrorObject } from 'ajv';
import { Command, CommanderError, Option } from 'commander';
import { RestbusError } from '../errors/restbus-error';

/** One setting of a program: its flag, its environment variable and the JSON schema of its value. */
export interface SettingSpec {
  key: string;
  /** Commander flags, e.g. `-p, --port <port>`; a flag without `<value>` is a boolean switch. */
  flags: string;
  /** Other long flags accepted for the same setting and left out of the help, e.g. easer's `--logLevel`. */
  aliases?: readonly string[];
  env?: string;
  description: string;
  schema: Record<string, unknown>;
  /** A setting without a default that must be given. */
  required?: boolean;
  /** The default as help tells it, when it is not a value of the schema (e.g. "the current folder"). */
  defaultText?: string;
  /** What a schema cannot say (e.g. "a URL that parses"): the problem with a valid value, or undefined. */
  check?: (value: unknown) => string | undefined;
}

/** A positional argument, e.g. `[environment]`; its value is a string under `key`, or absent. */
export interface ArgumentSpec {
  key: string;
  /** Commander syntax: `<name>` (required) or `[name]` (optional). */
  name: string;
  description: string;
}

/** A flag another program (easer) had and this one does not take: given, it stops the program and says why. */
export interface DeclinedFlag {
  /** Commander flags, e.g. `-w, --useWebsocket` or `-c, --config <file>`. */
  flags: string;
  why: string;
}

export interface ProgramSpec {
  name: string;
  version: string;
  description: string;
  arguments?: readonly ArgumentSpec[];
  settings: readonly SettingSpec[];
  /** Left out of the help; refused with their reason rather than as unknown. */
  declined?: readonly DeclinedFlag[];
}

export interface LoadConfigOptions {
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Where help and usage errors are written; stdout/stderr when absent. */
  output?: { writeOut(text: string): void; writeErr(text: string): void };
}

/** The exit code of a command line that was not understood, as most Unix tools (and rest-tool) use it. */
export const USAGE_EXIT_CODE = 2;

function deepFreeze<T>(value: T): Readonly<T> {
  if (value && typeof value === 'object' && !Object.isFrozen(value)) {
    Object.values(value).forEach(deepFreeze);
    Object.freeze(value);
  }
  return value;
}

function allowedValues(setting: SettingSpec): readonly unknown[] | undefined {
  const allowed = setting.schema.enum;
  return Array.isArray(allowed) ? allowed : undefined;
}

function describeSetting(setting: SettingSpec): string {
  const defaultValue = setting.schema.default;
  const allowed = allowedValues(setting);
  const suffix = [
    allowed ? `one of ${allowed.join('|')}` : undefined,
    setting.env ? `env ${setting.env}` : undefined,
    setting.defaultText !== undefined
      ? `default ${setting.defaultText}`
      : defaultValue === undefined
        ? undefined
        : `default ${JSON.stringify(defaultValue)}`,
  ].filter(Boolean);
  return suffix.length ? `${setting.description} (${suffix.join(', ')})` : setting.description;
}

function toOptions(setting: SettingSpec): Option[] {
  const value = /\s[<[].*$/.exec(setting.flags)?.[0] ?? '';
  const options = [
    new Option(setting.flags, describeSetting(setting)),
    ...(setting.aliases ?? []).map((alias) => new Option(`${alias}${value}`).hideHelp()),
  ];
  // loadConfig reads each setting under its key: a flag that commander would store elsewhere is a spec mistake.
  for (const option of options) {
    if (option.attributeName() !== setting.key) {
      throw new Error(`the flag ${option.flags} is stored as ${option.attributeName()}, not as ${setting.key}`);
    }
  }
  return options;
}

function createCommand(spec: ProgramSpec, options: LoadConfigOptions): Command {
  const command = new Command(spec.name)
    .description(spec.description)
    .version(spec.version, '-V, --version')
    .helpOption('-h, --help')
    .allowExcessArguments(false)
    .exitOverride();
  if (options.output) command.configureOutput(options.output);
  for (const argument of spec.arguments ?? []) command.argument(argument.name, argument.description);
  for (const setting of spec.settings) for (const option of toOptions(setting)) command.addOption(option);
  for (const declined of spec.declined ?? []) command.addOption(new Option(declined.flags).hideHelp());
  return command;
}

/** How a message names a setting: its long flag and its variable, e.g. `--port / PORT`. */
function nameOf(setting: SettingSpec): string {
  return [setting.flags.split(/[ ,]+/).find((f) => f.startsWith('--')), setting.env].filter(Boolean).join(' / ');
}

function describeProblem(spec: ProgramSpec, values: Record<string, unknown>, error: ErrorObject): string {
  const missing: unknown = error.params.missingProperty;
  const key = typeof missing === 'string' ? missing : (error.instancePath.split('/')[1] ?? '');
  const setting = spec.settings.find((candidate) => candidate.key === key);
  const name = setting ? nameOf(setting) : key;
  if (error.keyword === 'required') return `${name} is required`;
  // ajv's enum message ("must be equal to one of the allowed values") does not say which they are.
  const allowed = setting && allowedValues(setting);
  const message = error.keyword === 'enum' && allowed ? `must be one of ${allowed.join('|')}` : error.message;
  return `${name}: ${message ?? 'is invalid'} (got ${JSON.stringify(values[key])})`;
}

/** The JSON schema a program's settings (and arguments) are checked against, each under its key. */
export function createSettingsSchema(spec: ProgramSpec): Record<string, unknown> {
  return {
    type: 'object',
    additionalProperties: false,
    required: spec.settings.filter((setting) => setting.required).map((setting) => setting.key),
    properties: {
      ...Object.fromEntries((spec.arguments ?? []).map((argument) => [argument.key, { type: 'string' }])),
      ...Object.fromEntries(spec.settings.map((setting) => [setting.key, setting.schema])),
    },
  };
}

/**
 * Reads a program's settings from its flags and environment (flags win), fills defaults, validates and
 * coerces them with ajv against each setting's schema, and returns them, with the positional arguments,
 * deep-frozen. Help and version requests surface as a `HELP_SHOWN` {@link RestbusError}, command lines that are
 * not understood as a `USAGE` one (exit {@link USAGE_EXIT_CODE}); invalid values as a `CONFIG_INVALID` one naming
 * the flag and the variable.
 */
export function loadConfig<T>(spec: ProgramSpec, options: LoadConfigOptions): Readonly<T> {
  const command = createCommand(spec, options);
  try {
    command.parse([...options.argv], { from: 'user' });
    for (const declined of spec.declined ?? []) {
      const option = new Option(declined.flags);
      if (command.getOptionValue(option.attributeName()) !== undefined) {
        // Said the way commander says an unknown option, and exits the same way (2).
        command.error(`error: option '${option.long ?? option.short}' is not supported: ${declined.why}`);
      }
    }
  } catch (err) {
    // Thrown instead of exiting: commander has printed the help, the version or what it did not understand.
    if (err instanceof CommanderError) throw new RestbusError(err.exitCode === 0 ? 'HELP_SHOWN' : 'USAGE', err.message);
    throw err;
  }
  const flags = command.opts<Record<string, unknown>>();
  const values: Record<string, unknown> = {};
  for (const setting of spec.settings) {
    const fromEnv = setting.env ? options.env[setting.env] : undefined;
    if (fromEnv !== undefined && fromEnv !== '') values[setting.key] = fromEnv;
    if (flags[setting.key] !== undefined) values[setting.key] = flags[setting.key];
  }
  (spec.arguments ?? []).forEach((argument, index) => {
    const value = command.args[index];
    if (value !== undefined) values[argument.key] = value;
  });
  // 'array' also turns a single value from the environment into a one-item list for list settings. The schema is not
  // checked against the meta-schema here: that compiled the meta-schema first, a third of a program's config time at
  // every start; each program's tests check its settings' schema once (findInvalidSettings in @restbus/infra/testing).
  const ajv = new Ajv({
    allErrors: true,
    coerceTypes: 'array',
    useDefaults: true,
    strict: false,
    validateSchema: false,
  });
  const validate = ajv.compile(createSettingsSchema(spec));
  const problems = validate(values)
    ? spec.settings.flatMap((setting) => {
        const problem = values[setting.key] === undefined ? undefined : setting.check?.(values[setting.key]);
        return problem === undefined
          ? []
          : [`${nameOf(setting)}: ${problem} (got ${JSON.stringify(values[setting.key])})`];
      })
    : (validate.errors ?? []).map((error) => describeProblem(spec, values, error));
  if (problems.length > 0) {
    throw new RestbusError('CONFIG_INVALID', `invalid configuration: ${problems.join('; ')}`);
  }
  return deepFreeze(values as T);
}
