import type { Command } from 'commander';
import { count, withConfigOption, withStrictOption, type CommandContext } from '../command-context';
import { commandModules } from '../load-command-modules';

export function addExportOasCommand(program: Command, context: CommandContext): void {
  const { deps, say, warn } = context;
  const command = program
    .command('export-oas')
    .description('write an OpenAPI 3.1 document of the services (to serve them with restbus-gateway)')
    .option('-o, --output <file>', 'the file to write, JSON if it ends in .json, else YAML (default: standard output)');
  withStrictOption(withConfigOption(command)).action(
    async (options: { output?: string; config: string; strict?: boolean }) => {
      const result = await commandModules.exportOpenApi().exportOpenApi({
        cwd: deps.cwd,
        configFile: options.config,
        output: options.output,
        strict: options.strict,
      });
      result.warnings.forEach(warn);
      if (result.file) say(`wrote ${count(result.paths, 'path')} to ${result.file}`);
      else deps.stdout(result.text);
    },
  );
}
