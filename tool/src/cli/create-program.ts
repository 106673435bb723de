import { Command } from 'commander';
import { createCommandContext } from './command-context';
import { addAddBulkCommand } from './commands/add-bulk-command';
import { addAddCommand } from './commands/add-command';
import { addCreateCommand } from './commands/create-command';
import { addDocsCommand } from './commands/docs-command';
import { addExportOasCommand } from './commands/export-oas-command';
import { addGenerateServiceCommand } from './commands/generate-service-command';
import { addImportOasCommand } from './commands/import-oas-command';
import { addTestCommand } from './commands/test-command';
import { addValidateCommand } from './commands/validate-command';
import type { ProgramDeps } from './program-deps';

/**
 * The rest-tool command line, a module per command (commands/). Every action reports through deps and throws
 * RestbusError on failure.
 */
export function createProgram(deps: ProgramDeps): Command {
  const program = new Command('rest-tool')
    .description('Creates and maintains REST API projects: service descriptors, mock server, documentation, tests.')
    .version(deps.version, '-V, --version', 'print the version')
    .helpOption('-h, --help', 'print help')
    .configureOutput({ writeOut: deps.stdout, writeErr: deps.stderr })
    .showSuggestionAfterError()
    .allowExcessArguments(false)
    .exitOverride();
  const context = createCommandContext(deps);
  for (const add of [
    addCreateCommand,
    addAddCommand,
    addAddBulkCommand,
    addDocsCommand,
    addTestCommand,
    addValidateCommand,
    addExportOasCommand,
    addImportOasCommand,
    addGenerateServiceCommand,
  ]) {
    add(program, context);
  }
  return program;
}
