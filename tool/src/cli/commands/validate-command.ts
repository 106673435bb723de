import type { Command } from 'commander';
import { count, withConfigOption, withStrictOption, type CommandContext } from '../command-context';
import { commandModules } from '../load-command-modules';

export function addValidateCommand(program: Command, context: CommandContext): void {
  const { deps, say, show, warn } = context;
  const command = program
    .command('validate')
    .description(
      'check a project as restbus-mock --check does: configs, descriptors, referenced files, implementation modules (exit 0 or 1)',
    );
  withStrictOption(withConfigOption(command)).action(async (options: { config: string; strict?: boolean }) => {
    const report = await commandModules
      .validateProject()
      .validateProject({ cwd: deps.cwd, configFile: options.config, strict: options.strict });
    report.warnings.forEach(warn);
    const where = show(report.root);
    say(`the project${where === '.' ? '' : ` in ${where}`} is valid: ${count(report.services, 'service')}`);
  });
}
