#!/usr/bin/env node
// restbus-mock [environment] [--project <dir>] [--port <n>] [--host <h>] [--no-watch] [--check]
import { Command, InvalidArgumentError } from 'commander';
import {
  CommandLineExit,
  createLogger,
  onShutdownSignal,
  readPackageVersion,
  RestbusError,
  runMain,
} from '@restbus/infra';
import { checkProject } from './server/check-project';
import { startMockServer } from './server/start-mock-server';

const toPort = (text: string): number => {
  const port = Number(text);
  if (!/^\d+$/.test(text) || port > 65535) throw new InvalidArgumentError('a port is a whole number from 0 to 65535');
  return port;
};

runMain('restbus-mock', async () => {
  const program = new Command('restbus-mock')
    .description('Serves a REST API project from its service.yml descriptors, static folders and proxy rules')
    .version(readPackageVersion(__dirname), '-V, --version')
    .argument('[environment]', 'environment of server/config.yml (default: its useEnvironment)')
    .option('--project <dir>', 'the project folder', process.cwd())
    .option('--port <port>', "listening port (default: the environment's port, else the project's servicePort)", toPort)
    .option('--host <host>', 'listening address', '0.0.0.0')
    .option('--no-watch', 'do not reload when project files change')
    .option('--check', 'validate the project (files, modules, functions) and exit')
    .option('--log-level <level>', 'pino log level', process.env.LOG_LEVEL ?? 'info')
    .showSuggestionAfterError()
    .exitOverride();
  try {
    program.parse(process.argv);
  } catch (err) {
    throw new CommandLineExit((err as { exitCode?: number }).exitCode ?? 1, (err as Error).message);
  }
  const options = program.opts<{
    project: string;
    port?: number;
    host: string;
    watch: boolean;
    check?: boolean;
    logLevel: string;
  }>();
  const environment = program.args[0];
  if (options.check) {
    const result = await checkProject({ projectDir: options.project, environment });
    for (const warning of result.warnings) process.stderr.write(`restbus-mock: warning: ${warning}\n`);
    if (result.problems.length) throw new RestbusError('PROJECT_INVALID', result.problems.join('\n'));
    process.stdout.write(`restbus-mock: ${result.summary}\n`);
    return;
  }
  const logger = createLogger({ name: 'restbus-mock', level: options.logLevel });
  const server = await startMockServer({
    projectDir: options.project,
    environment,
    port: options.port,
    host: options.host,
    watch: options.watch,
    logger,
  });
  onShutdownSignal(() => server.close());
});
