#!/usr/bin/env node
// restbus-mock [environment] [--project <dir>] [--port <n>] [--host <h>] [--no-watch] [--check] [--log-level <l>]
import { createLogger, loadConfig, onShutdownSignal, runMain, toHttpLimits } from '@restbus/infra';
import { checkProject } from './server/check-project';
import { mockProgram, type MockCommandLine } from './server/mock-program';
import { startMockServer } from './server/start-mock-server';

runMain('restbus-mock', async () => {
  const options = loadConfig<MockCommandLine>(mockProgram, { argv: process.argv.slice(2), env: process.env });
  const projectDir = options.project ?? process.cwd();
  if (options.check) {
    const { project, warnings } = await checkProject({
      projectDir,
      environment: options.environment,
      strict: options.strict,
      validate: options.validate || undefined,
    });
    for (const warning of warnings) process.stderr.write(`restbus-mock: warning: ${warning}\n`);
    const services = `${project.services.length} service${project.services.length === 1 ? '' : 's'}`;
    process.stdout.write(
      `restbus-mock: ${project.root} is valid: ${services}, environment ${project.environment.name}\n`,
    );
    return;
  }
  const logger = createLogger({
    name: 'restbus-mock',
    level: options.logLevel,
    format: options.logFormat,
    terminal: process.stdout.isTTY,
  });
  const server = await startMockServer({
    projectDir,
    environment: options.environment,
    port: options.port,
    host: options.host,
    watch: options.watch,
    strict: options.strict,
    // The flag turns validation on; without it the environment's `validate` decides.
    validate: options.validate || undefined,
    bodyLimit: options.bodyLimit,
    limits: toHttpLimits(options),
    logger,
  });
  onShutdownSignal(() => server.close());
});
