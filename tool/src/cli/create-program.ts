import { dirname, resolve } from 'node:path';
import { Command, InvalidArgumentError, Option } from 'commander';
import { addServices } from '../add/add-services';
import { readBulkFile } from '../add/read-bulk-file';
import { DEFAULT_DESCRIPTION, HTTP_METHODS, SERVICE_TYPES, isServiceType, type ServiceType } from '../add/service-spec';
import { createProject } from '../create/create-project';
import { describeNextSteps } from '../create/describe-next-steps';
import { exportOpenApi } from '../export-oas/export-openapi';
import { assertConfigFolder } from '../project/project-config';
import { validateProject } from '../validate/validate-project';

type Verbose = (line: string) => void;

/** The generators of the docs and test commands (passed in: main.ts is the one place that wires modules together). */
export interface Generators {
  generateDocs(options: {
    projectDir: string;
    configFile?: string;
    verbose?: Verbose;
    force?: boolean;
  }): Promise<{ written: number }>;
  generateTests(options: {
    projectDir: string;
    configFile?: string;
    verbose?: Verbose;
  }): Promise<{ written: string[]; skipped: string[]; warnings: string[] }>;
}

export interface ProgramDeps extends Generators {
  version: string;
  cwd: string;
  /** The process environment (RESTBUS_TOOL_CONTAINER=1: the tool runs in its container image). */
  env: Readonly<Record<string, string | undefined>>;
  stdout(text: string): void;
  stderr(text: string): void;
}

const CONFIG_FLAGS = '-c, --config <file>';
const CONFIG_HELP = "the project's config.yml (its folder is the project)";
const STRICT_HELP = 'treat warnings (files only documentation and generated tests read, and other notices) as errors';

function parseType(value: string): ServiceType {
  const type = value.toUpperCase();
  if (!isServiceType(type)) throw new InvalidArgumentError(`must be one of ${SERVICE_TYPES.join(', ')}.`);
  return type;
}

function parseMethods(value: string): string[] {
  const methods = value.split(',').map((method) => method.trim().toUpperCase());
  const unknown = methods.filter((method) => !(HTTP_METHODS as readonly string[]).includes(method));
  if (unknown.length) throw new InvalidArgumentError(`must be a comma-separated list of ${HTTP_METHODS.join(', ')}.`);
  return methods;
}

const count = (n: number, noun: string): string => `${n} ${noun}${n === 1 ? '' : 's'}`;

/** Every missing required option in one message (commander would stop at the first): a usage error, exit 2. */
function requireOptions(command: Command, flags: Record<string, string>): void {
  const options = command.opts<Record<string, unknown>>();
  const missing = Object.entries(flags)
    .filter(([key]) => options[key] === undefined)
    .map(([, flag]) => flag);
  if (missing.length) {
    command.error(`error: missing required option${missing.length > 1 ? 's' : ''} ${missing.join(', ')}`, {
      exitCode: 2,
      code: 'commander.missingMandatoryOptionValue',
    });
  }
}

/** The rest-tool command line. Every action reports through deps and throws RestbusError on failure. */
export function createProgram(deps: ProgramDeps): Command {
  const { cwd } = deps;
  const say = (line: string): void => deps.stdout(`${line}\n`);
  const verboseFor = (enabled: boolean | undefined): Verbose | undefined => (enabled ? say : undefined);
  const projectOf = (config: string): { projectDir: string; configFile: string } => {
    const configFile = resolve(cwd, config);
    return { projectDir: dirname(configFile), configFile };
  };

  const program = new Command('rest-tool')
    .description('Creates and maintains REST API projects: service descriptors, mock server, documentation, tests.')
    .version(deps.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print help')
    .configureOutput({ writeOut: deps.stdout, writeErr: deps.stderr })
    .showSuggestionAfterError()
    .allowExcessArguments(false)
    .exitOverride();

  program
    .command('create')
    .description('create a new project folder with the monitoring service, the mock server and the templates')
    .argument('<project-name>', 'the folder to create, inside the current one; its name is the projectName')
    .option('-v, --verbose', 'list every file written')
    .action(async (name: string, options: { verbose?: boolean }) => {
      const { dir } = await createProject({ cwd, name, verbose: verboseFor(options.verbose) });
      say(`created the project ${dir}`);
      for (const line of describeNextSteps({ name, inContainer: deps.env.RESTBUS_TOOL_CONTAINER === '1' })) say(line);
    });

  program
    .command('add')
    .description('add a service: its folder with service.yml and mock files, listed in config.yml')
    .addOption(
      new Option('-t, --type <type>', `the kind of service: ${SERVICE_TYPES.join(', ')}`)
        .argParser(parseType)
        .default('RESOURCE'),
    )
    // Required, but checked in the action: commander would report a missing option before an unknown one (a typo).
    .option('-p, --path <path>', 'required: the service folder, below servicesRoot (e.g. /users/user)')
    .option(
      '-u, --uriTemplate <uriTemplate>',
      'required: the URI of the service, after serviceUrlPrefix (e.g. /users/{id})',
    )
    .option('-n, --name <name>', 'required: the name of the service')
    .option('-d, --desc <desc>', 'the description of the service (Markdown)', DEFAULT_DESCRIPTION)
    .option(
      '-m, --methods <methods>',
      "keep only these of the type's methods, comma-separated (e.g. GET,PUT)",
      parseMethods,
    )
    .option(CONFIG_FLAGS, CONFIG_HELP, 'config.yml')
    .option('-v, --verbose', 'list every file written')
    .action(
      async (
        options: {
          type: ServiceType;
          path?: string;
          uriTemplate?: string;
          name?: string;
          desc: string;
          methods?: string[];
          config: string;
          verbose?: boolean;
        },
        command: Command,
      ) => {
        requireOptions(command, { path: '-p, --path', uriTemplate: '-u, --uriTemplate', name: '-n, --name' });
        const [service] = await addServices({
          cwd,
          configFile: options.config,
          specs: [
            {
              type: options.type,
              path: options.path as string,
              uriTemplate: options.uriTemplate as string,
              name: options.name as string,
              description: options.desc,
              methods: options.methods,
            },
          ],
          verbose: verboseFor(options.verbose),
        });
        say(
          `added the ${service.spec.type} service ${service.entry} (${service.spec.uriTemplate}) to ${options.config}`,
        );
      },
    );

  program
    .command('add-bulk')
    .description(
      'add several services from a JSON or YAML list of {type, path, uriTemplate, name, description, methods}',
    )
    .option('-s, --services <file>', 'required: the list of services (.json, .yml or .yaml)')
    .option(CONFIG_FLAGS, CONFIG_HELP, 'config.yml')
    .option('-v, --verbose', 'list every file written')
    .action(async (options: { services?: string; config: string; verbose?: boolean }, command: Command) => {
      requireOptions(command, { services: '-s, --services' });
      // Outside a project, say that first: the list's own problems would not matter there.
      await assertConfigFolder(cwd, options.config);
      const bulk = await readBulkFile(cwd, options.services as string);
      const added = await addServices({
        cwd,
        configFile: options.config,
        specs: bulk.specs,
        labels: bulk.labels,
        order: bulk.order,
        problems: bulk.problems,
        verbose: verboseFor(options.verbose),
      });
      for (const service of added)
        say(`added the ${service.spec.type} service ${service.entry} (${service.spec.uriTemplate})`);
      say(`${count(added.length, 'service')} added to ${options.config}`);
    });

  program
    .command('docs')
    .description('generate the HTML documentation into docs/ (only the files it generates are replaced)')
    .option('-u, --update', 'write the documentation (without it, nothing is done)')
    .option(CONFIG_FLAGS, CONFIG_HELP, 'config.yml')
    .option('-v, --verbose', 'show progress')
    .option('--force', 'also replace files in docs/ it did not write, or that were edited since')
    .action(
      async (options: { update?: boolean; config: string; verbose?: boolean; force?: boolean }, command: Command) => {
        if (!options.update) command.error('error: docs writes the documentation with -u/--update', { exitCode: 2 });
        const { written } = await deps.generateDocs({
          ...projectOf(options.config),
          verbose: verboseFor(options.verbose),
          force: options.force === true,
        });
        say(`wrote ${count(written, 'documentation file')} into docs/`);
      },
    );

  program
    .command('test')
    .description('generate a test file per test case into test/ (existing files are kept)')
    .option('-u, --update', 'write the tests (without it, nothing is done)')
    .option(CONFIG_FLAGS, CONFIG_HELP, 'config.yml')
    .option('-v, --verbose', 'show progress')
    .action(async (options: { update?: boolean; config: string; verbose?: boolean }, command: Command) => {
      if (!options.update) command.error('error: test writes the tests with -u/--update', { exitCode: 2 });
      const { written, skipped, warnings } = await deps.generateTests({
        ...projectOf(options.config),
        verbose: verboseFor(options.verbose),
      });
      for (const warning of warnings) deps.stderr(`rest-tool: warning: ${warning}\n`);
      say(`wrote ${count(written.length, 'test file')} into test/`);
      if (skipped.length) say(`kept ${count(skipped.length, 'existing file')}: ${skipped.join(', ')}`);
    });

  program
    .command('validate')
    .description('check a project: configs, descriptors, referenced files, no route served twice (exit 0 or 1)')
    .option(CONFIG_FLAGS, CONFIG_HELP, 'config.yml')
    .option('--strict', STRICT_HELP)
    .action(async (options: { config: string; strict?: boolean }) => {
      const report = await validateProject({ cwd, configFile: options.config, strict: options.strict });
      for (const warning of report.warnings) deps.stderr(`rest-tool: warning: ${warning}\n`);
      say(`${report.root} is valid: ${count(report.services, 'service')}`);
    });

  program
    .command('export-oas')
    .description('write an OpenAPI 3.1 document of the services (to serve them with restbus-gateway)')
    .option('-o, --output <file>', 'the file to write, JSON if it ends in .json, else YAML (default: standard output)')
    .option(CONFIG_FLAGS, CONFIG_HELP, 'config.yml')
    .option('--strict', STRICT_HELP)
    .action(async (options: { output?: string; config: string; strict?: boolean }) => {
      const result = await exportOpenApi({
        cwd,
        configFile: options.config,
        output: options.output,
        strict: options.strict,
      });
      for (const warning of result.warnings) deps.stderr(`rest-tool: warning: ${warning}\n`);
      if (result.file) say(`wrote ${count(result.paths, 'path')} to ${result.file}`);
      else deps.stdout(result.text);
    });

  return program;
}
