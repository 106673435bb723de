import { InvalidArgumentError, type Command } from 'commander';
import { describeNextSteps } from '../../create/describe-next-steps';
import { DEFAULT_SERVICE_PORT } from '../../create/default-service-port';
import type { CommandContext } from '../command-context';
import { commandModules } from '../load-command-modules';

/** A --port value: a port a server can be reached on (0, "any free port", cannot be called by tests or docs). */
function parsePort(text: string): number {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port < 1 || port > 65535) {
    throw new InvalidArgumentError('a port is a whole number from 1 to 65535.');
  }
  return port;
}

export function addCreateCommand(program: Command, context: CommandContext): void {
  const { deps, say, show, verboseFor } = context;
  program
    .command('create')
    .description('create a new project folder with the monitoring service, the mock server and the templates')
    .argument('<project-name>', 'the folder to create, inside the current one; its name is the projectName')
    .option(
      '--port <port>',
      "where the project's API is served and called: servicePort and baseUrl in config.yml, and the port of the " +
        `server environments that serve on it (default ${DEFAULT_SERVICE_PORT}; 3017 keeps clear of the compose stack)`,
      parsePort,
    )
    .option('-v, --verbose', 'list every file written')
    .action(async (name: string, options: { port?: number; verbose?: boolean }) => {
      const { dir, port } = await commandModules.createProject().createProject({
        cwd: deps.cwd,
        name,
        port: options.port,
        verbose: verboseFor(options.verbose),
      });
      say(`created the project ${show(dir)}`);
      const inContainer = deps.env.RESTBUS_TOOL_CONTAINER === '1';
      for (const line of describeNextSteps({ name, port, inContainer })) say(line);
    });
}
