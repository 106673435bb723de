import type { Command } from 'commander';
import { count, withConfigOption, type CommandContext } from '../command-context';

export function addDocsCommand(program: Command, context: CommandContext): void {
  const { deps, say, warn, verboseFor, projectOf } = context;
  const command = program
    .command('docs')
    .description('generate the HTML documentation into docs/ (only the files it generates are replaced)')
    .option('-u, --update', 'write the documentation (without it, nothing is done)');
  withConfigOption(command)
    .option('-v, --verbose', 'show progress')
    .option('--force', 'also replace files in docs/ it did not write, or that were edited since')
    .action(
      async (options: { update?: boolean; config: string; verbose?: boolean; force?: boolean }, self: Command) => {
        if (!options.update) self.error('error: docs writes the documentation with -u/--update', { exitCode: 2 });
        const { written, warnings } = await deps.generateDocs({
          ...projectOf(options.config),
          verbose: verboseFor(options.verbose),
          force: options.force === true,
        });
        warnings.forEach(warn);
        say(`wrote ${count(written, 'documentation file')} into docs/`);
      },
    );
}
