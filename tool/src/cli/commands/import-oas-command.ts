import { InvalidArgumentError, type Command } from 'commander';
import { SERVICE_TYPES, type ServiceType } from '../../add/service-spec';
import { quoteForShell } from '../../create/describe-next-steps';
import { count, type CommandContext } from '../command-context';
import { commandModules } from '../load-command-modules';

/** `--style /pets/{petId}=RESOURCE`, repeated: the styles by OpenAPI path. */
function collectStyle(value: string, previous: Map<string, ServiceType> | undefined): Map<string, ServiceType> {
  const at = value.lastIndexOf('=');
  const style = at > 0 ? commandModules.nameServices().parseStyle(value.slice(at + 1)) : undefined;
  if (!style || !value.startsWith('/')) {
    throw new InvalidArgumentError(
      `must be <path>=<STYLE>, the path as the OpenAPI file has it and one of ${SERVICE_TYPES.join(', ')}.`,
    );
  }
  return new Map(previous ?? []).set(value.slice(0, at), style);
}

interface ImportOasOptions {
  style?: Map<string, ServiceType>;
  verbose?: boolean;
}

export function addImportOasCommand(program: Command, context: CommandContext): void {
  const { deps, say, show, warn, verboseFor } = context;
  program
    .command('import-oas')
    .description('create a project from an OpenAPI 2.0, 3.0 or 3.1 file (YAML or JSON): a service per path, with mocks')
    .argument('<file>', 'the OpenAPI file')
    .argument(
      '[project-folder]',
      'the folder to create inside the current one (or an empty one there); default: from info.title',
    )
    .option(
      '--style <path=STYLE>',
      "a path's service style, OPERATION, COLLECTION or RESOURCE, over x-restbus-style and the guess (repeatable)",
      collectStyle,
    )
    .option('-v, --verbose', 'list every file written')
    .action(async (file: string, folder: string | undefined, options: ImportOasOptions) => {
      const result = await commandModules.importOpenApi().importOpenApi({
        cwd: deps.cwd,
        file,
        folder,
        styles: options.style,
        verbose: verboseFor(options.verbose),
      });
      const { plan } = result;
      const { counts } = plan;
      result.warnings.forEach(warn);
      say(
        `imported ${file} (${plan.version}) into ${show(result.dir)}: ${count(plan.services.length, 'service')}, ` +
          `${count(counts.methods, 'method')}, ${count(counts.parameters, 'parameter')}, ` +
          `${count(counts.responses, 'response')}, ${count(counts.mockFiles, 'mock file')}, ` +
          `${count(counts.schemaFiles, 'schema file')}, ${count(counts.testCases, 'test case')}` +
          (result.warnings.length ? ` (${count(result.warnings.length, 'warning')} on stderr)` : ''),
      );
      say(
        `  projectName ${JSON.stringify(plan.projectName)}, apiVersion ${JSON.stringify(plan.apiVersion)}, ` +
          `serviceUrlPrefix ${JSON.stringify(plan.serviceUrlPrefix)}`,
      );
      for (const service of plan.services) {
        say(`  services${service.entry} (${service.style}): ${service.methods.join(', ')} ${service.path}`);
      }
      say('next steps:');
      say(`  cd ${quoteForShell(result.folder)}`);
      say('  rest-tool validate && rest-tool test -u && rest-tool docs -u');
      say(`  node server/server                # the mock server on port 3007`);
    });
}
