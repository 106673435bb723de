#!/usr/bin/env node
import {
  allowLinearRegExpFallback,
  createLogger,
  loadConfig,
  onShutdownSignal,
  readTracingSettings,
  runMain,
  startTracing,
  stopWithParent,
} from '@restbus/infra';
import { describeConfig } from './app/describe-config';
import type { RunningGateway } from './app/start-gateway';
import { gatewayProgram, type GatewayConfig } from './config';

// Each loaded only by the mode that runs it: --check reads the files and exits, the others serve them.
const loadCheckApis = (): typeof import('./app/check-apis') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('./app/check-apis') as typeof import('./app/check-apis');
const loadKeysCommand = (): typeof import('./security/api-keys/keys-main') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the mode that uses it
  require('./security/api-keys/keys-main') as typeof import('./security/api-keys/keys-main');
const loadStartGateway = (): typeof import('./app/start-gateway') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('./app/start-gateway') as typeof import('./app/start-gateway');

// `restbus-gateway keys …` manages the API keys the gateways accept; anything else starts (or checks) a gateway.
if (process.argv[2] === 'keys') {
  runMain('restbus-gateway keys', async () => loadKeysCommand().runKeys(process.argv.slice(3), process.env));
} else
  runMain('restbus-gateway', async () => {
    // A schema's pattern that backtracks catastrophically on a hostile value finishes in linear time (--validate).
    allowLinearRegExpFallback();
    const config = loadConfig<GatewayConfig>(gatewayProgram, { argv: process.argv.slice(2), env: process.env });
    if (config.dumpConfig) process.stdout.write(describeConfig(config));
    if (config.check) {
      const { checkApis } = loadCheckApis();
      process.exitCode = await checkApis(config, process.stdout);
      return;
    }
    // SIGHUP reloads the API files; a file that no longer loads is reported and the old routes keep serving. Reloads
    // are coalesced (one running, one queued), so a burst of signals costs two loads. The handler is there from the
    // start, before the gateway's code is loaded, since SIGHUP's default action ends the process: one that comes during
    // the start reloads once it is up.
    const start: { gateway?: Promise<RunningGateway>; signalledEarly?: boolean } = {};
    const reload = (): void => {
      void start.gateway?.then((gateway) => gateway.reload()).catch(() => false);
    };
    process.on('SIGHUP', () => {
      if (start.gateway) reload();
      else start.signalledEarly = true;
    });
    const logger = createLogger({
      name: 'restbus-gateway',
      level: config.logLevel,
      format: config.logFormat,
      terminal: process.stdout.isTTY,
    });
    // Under npx or npm exec a signal sent to npm stops the shell npm runs, not this process: stop when that goes.
    stopWithParent({
      env: process.env,
      parentPid: () => process.ppid,
      onParentGone: () => {
        logger.info('the process that started the gateway (npx, npm exec, npm run) has ended; stopping');
        process.kill(process.pid, 'SIGTERM');
      },
    });
    // Before the gateway's code runs, so that its first call is traced; its spans leave before the process does.
    const tracing = startTracing(readTracingSettings(process.env), {
      service: 'restbus-gateway',
      version: gatewayProgram.version,
      logger,
      // The gateway names each span's parent itself and runs no one else's code: no span is kept active.
      activeSpans: false,
    });
    const { startGateway } = loadStartGateway();
    start.gateway = startGateway(config, logger);
    if (start.signalledEarly) reload();
    const gateway = await start.gateway;
    onShutdownSignal(async () => {
      await gateway.stop();
      await tracing.shutdown();
    });
  });
