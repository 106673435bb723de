import type { Command } from 'commander';
import { assertConfigFolder } from '../../project/project-config';
import { count, requireOptions, withConfigOption, type CommandContext } from '../command-context';
import { commandModules } from '../load-command-modules';

export function addAddBulkCommand(program: Command, context: CommandContext): void {
  const { deps, say, verboseFor } = context;
  const command = program
    .command('add-bulk')
    .description(
      'add several services from a JSON or YAML list of {type, path, uriTemplate, name, description, methods}',
    )
    .option('-s, --services <file>', 'required: the list of services (.json, .yml or .yaml)');
  withConfigOption(command)
    .option('-v, --verbose', 'list every file written')
    .action(async (options: { services?: string; config: string; verbose?: boolean }, self: Command) => {
      requireOptions(self, options, [['services', '-s, --services']]);
      // Outside a project, say that first: the list's own problems would not matter there.
      await assertConfigFolder(deps.cwd, options.config);
      const bulk = await commandModules.readBulkFile().readBulkFile(deps.cwd, options.services);
      const added = await commandModules.addServices().addServices({
        cwd: deps.cwd,
        configFile: options.config,
        specs: bulk.specs,
        labels: bulk.labels,
        order: bulk.order,
        problems: bulk.problems,
        pathOption: '"path"',
        verbose: verboseFor(options.verbose),
      });
      for (const service of added)
        say(`added the ${service.spec.type} service ${service.entry} (${service.spec.uriTemplate})`);
      say(`${count(added.length, 'service')} added to ${options.config}`);
    });
}
