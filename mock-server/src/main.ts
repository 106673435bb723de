#!/usr/bin/env node
// restbus-mock [environment] [--project <dir>] [--port <n>] [--host <h>] [--no-watch] [--check] [--log-level <l>]
// restbus-mock record [environment] --target <url> [--project <dir>] [--port <n>] [--record-secrets]
import {
  allowLinearRegExpFallback,
  createLogger,
  loadConfig,
  onShutdownSignal,
  readTracingSettings,
  runMain,
  startTracing,
  stopWithParent,
  toHttpLimits,
  type Logger,
} from '@restbus/infra';
import { loadProject } from '@restbus/project-format';
import { startRecorder, type RecorderOptions } from './record/start-recorder';
import { checkProject } from './server/check-project';
import {
  mockProgram,
  RECORD_COMMAND,
  recordProgram,
  type MockCommandLine,
  type RecordCommandLine,
} from './server/mock-program';
import { startMockServer } from './server/start-mock-server';

/**
 * The program's logger. A recording writes through process.stdout (synchronous on Linux for files, pipes and
 * terminals) rather than pino's asynchronous stream, whose last lines a process that exits can reorder or lose: the
 * summary of what was written comes last, right before the exit.
 */
const toLogger = (options: { logLevel: string; logFormat?: 'pretty' | 'json' }, recording = false): Logger =>
  createLogger({
    name: 'restbus-mock',
    level: options.logLevel,
    format: options.logFormat,
    terminal: process.stdout.isTTY,
    ...(recording ? { destination: process.stdout } : {}),
  });

async function record(options: RecorderOptions): Promise<void> {
  const recorder = await startRecorder(options);
  onShutdownSignal(() => recorder.close());
}

/** Serves the project until a shutdown signal; each answer a span of its caller's trace while tracing is on. */
async function serve(options: MockCommandLine, projectDir: string): Promise<void> {
  const logger = toLogger(options);
  const tracing = startTracing(readTracingSettings(process.env), {
    service: 'restbus-mock',
    version: mockProgram.version,
    logger,
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
    validateUnchecked: options.validateUnchecked,
    bodyLimit: options.bodyLimit,
    stateMemory: options.stateMemory,
    eventInterval: options.eventInterval,
    limits: toHttpLimits(options),
    logger,
  });
  onShutdownSignal(async () => {
    await server.close();
    await tracing.shutdown();
  });
}

runMain('restbus-mock', async () => {
  // A schema's pattern that backtracks catastrophically on a hostile value finishes in linear time (--validate).
  allowLinearRegExpFallback();
  // Under npx or npm exec a signal sent to npm stops the shell npm runs, not this process: stop when that goes.
  stopWithParent({
    env: process.env,
    parentPid: () => process.ppid,
    onParentGone: () => process.kill(process.pid, 'SIGTERM'),
  });
  const argv = process.argv.slice(2);
  // loadConfig has no subcommands, and the first positional is otherwise the environment: a first word `record` is
  // the mode (an environment named `record` is served with `restbus-mock -- record`).
  if (argv[0] === RECORD_COMMAND) {
    const options = loadConfig<RecordCommandLine>(recordProgram, { argv: argv.slice(1), env: process.env });
    await record({
      projectDir: options.project ?? process.cwd(),
      environment: options.environment,
      target: options.target,
      // The flag turns it on; without it the environment's record.recordSecrets decides.
      recordSecrets: options.recordSecrets || undefined,
      port: options.port,
      host: options.host,
      limits: toHttpLimits(options),
      logger: toLogger(options, true),
    });
    return;
  }
  const options = loadConfig<MockCommandLine>(mockProgram, { argv, env: process.env });
  const projectDir = options.project ?? process.cwd();
  if (options.check) {
    const { project, warnings } = await checkProject({
      projectDir,
      environment: options.environment,
      strict: options.strict,
      validate: options.validate || undefined,
      validateUnchecked: options.validateUnchecked,
    });
    for (const warning of warnings) process.stderr.write(`restbus-mock: warning: ${warning}\n`);
    const services = `${project.services.length} service${project.services.length === 1 ? '' : 's'}`;
    process.stdout.write(
      `restbus-mock: ${project.root} is valid: ${services}, environment ${project.environment.name}\n`,
    );
    return;
  }
  // An environment with `record: { target }` in server/config.yml records rather than serves.
  const project = await loadProject({ projectDir, environment: options.environment });
  if (project.environment.record) {
    await record({
      projectDir,
      project,
      port: options.port,
      host: options.host,
      limits: toHttpLimits(options),
      logger: toLogger(options, true),
    });
    return;
  }
  await serve(options, projectDir);
});
