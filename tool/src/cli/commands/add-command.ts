import { InvalidArgumentError, Option, type Command } from 'commander';
import {
  DEFAULT_DESCRIPTION,
  HTTP_METHODS,
  SERVICE_TYPES,
  isServiceType,
  type ServiceType,
} from '../../add/service-spec';
import { requireOptions, withConfigOption, type CommandContext } from '../command-context';
import { commandModules } from '../load-command-modules';

function parseType(value: string): ServiceType {
  const type = value.toUpperCase();
  if (!isServiceType(type)) throw new InvalidArgumentError(`must be one of ${SERVICE_TYPES.join(', ')}.`);
  return type;
}

function parseMethods(value: string): string[] {
  const methods = value.split(',').map((method) => method.trim().toUpperCase());
  const unknown = methods.filter((method) => !HTTP_METHODS.some((known) => known === method));
  if (unknown.length) throw new InvalidArgumentError(`must be a comma-separated list of ${HTTP_METHODS.join(', ')}.`);
  return methods;
}

interface AddOptions {
  type: ServiceType;
  path?: string;
  uriTemplate?: string;
  name?: string;
  desc: string;
  methods?: string[];
  config: string;
  verbose?: boolean;
}

export function addAddCommand(program: Command, context: CommandContext): void {
  const { deps, say, verboseFor } = context;
  const command = program
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
    );
  withConfigOption(command)
    .option('-v, --verbose', 'list every file written')
    .action(async (options: AddOptions, self: Command) => {
      requireOptions(self, options, [
        ['path', '-p, --path'],
        ['uriTemplate', '-u, --uriTemplate'],
        ['name', '-n, --name'],
      ]);
      const [service] = await commandModules.addServices().addServices({
        cwd: deps.cwd,
        configFile: options.config,
        specs: [
          {
            type: options.type,
            path: options.path,
            uriTemplate: options.uriTemplate,
            name: options.name,
            description: options.desc,
            methods: options.methods,
          },
        ],
        verbose: verboseFor(options.verbose),
      });
      say(`added the ${service.spec.type} service ${service.entry} (${service.spec.uriTemplate}) to ${options.config}`);
    });
}
