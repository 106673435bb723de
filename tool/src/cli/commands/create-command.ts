import type { Command } from 'commander';
import { createProject } from '../../create/create-project';
import { describeNextSteps } from '../../create/describe-next-steps';
import type { CommandContext } from '../command-context';

export function addCreateCommand(program: Command, context: CommandContext): void {
  const { deps, say, verboseFor } = context;
  program
    .command('create')
    .description('create a new project folder with the monitoring service, the mock server and the templates')
    .argument('<project-name>', 'the folder to create, inside the current one; its name is the projectName')
    .option('-v, --verbose', 'list every file written')
    .action(async (name: string, options: { verbose?: boolean }) => {
      const { dir } = await createProject({ cwd: deps.cwd, name, verbose: verboseFor(options.verbose) });
      say(`created the project ${dir}`);
      for (const line of describeNextSteps({ name, inContainer: deps.env.RESTBUS_TOOL_CONTAINER === '1' })) say(line);
    });
}
