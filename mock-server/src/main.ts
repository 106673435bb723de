#!/usr/bin/env node
// restbus-mock [environment] [--project <dir>] [--port <n>] [--host <h>] [--no-watch] [--check] [--log-level <l>]
import { createLogger, loadConfig, onShutdownSignal, RestbusError, runMain, toHttpLimits } from '@restbus/infra';
import { checkProject } from './server/check-project';
import { mockProgram, type MockCommandLine } from './server/mock-program';
import { startMockServer } from './server/start-mock-server';

runMain('restbus-mock', async () => {
  const options = loadConfig<MockCommandLine>(mockProgram, { argv: process.argv.slice(2), env: process.env });
  const projectDir = options.project ?? process.cwd();
  if (options.check) {
    const result = await checkProject({ projectDir, environment: options.environment });
    for (const warning of result.warnings) process.stderr.write(`restbus-mock: warning: ${warning}\n`);
    if (result.problems.length) throw new RestbusError('PROJECT_INVALID', result.problems.join('\n'));
    process.stdout.write(`restbus-mock: ${result.summary}\n`);
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
    bodyLimit: options.bodyLimit,
    limits: toHttpLimits(options),
    logger,
  });
  onShutdownSignal(() => server.close());
});
