import type { Command } from 'commander';
import { count, withConfigOption, type CommandContext } from '../command-context';

export function addTestCommand(program: Command, context: CommandContext): void {
  const { deps, say, warn, verboseFor, projectOf } = context;
  const command = program
    .command('test')
    .description('generate a test file per test case into test/ (existing files are kept)')
    .option('-u, --update', 'write the tests (without it, nothing is done)');
  withConfigOption(command)
    .option('-v, --verbose', 'show progress')
    .action(async (options: { update?: boolean; config: string; verbose?: boolean }, self: Command) => {
      if (!options.update) self.error('error: test writes the tests with -u/--update', { exitCode: 2 });
      const { written, skipped, warnings, baseUrl } = await deps.generateTests({
        ...projectOf(options.config),
        verbose: verboseFor(options.verbose),
      });
      warnings.forEach(warn);
      say(`wrote ${count(written.length, 'test file')} into test/`);
      if (skipped.length) say(`kept ${count(skipped.length, 'existing file')}: ${skipped.join(', ')}`);
      // Where the tests go is the first thing to know when they fail: the gateway answering on a project's port.
      say(`the tests call ${baseUrl} (baseUrl in config.yml)`);
    });
}
