#!/usr/bin/env node
import {
  allowLinearRegExpFallback,
  createLogger,
  loadConfig,
  onShutdownSignal,
  runMain,
  stopWithParent,
} from '@restbus/infra';
import { checkApis } from './app/check-apis';
import { describeConfig } from './app/describe-config';
import { startGateway } from './app/start-gateway';
import { gatewayProgram, type GatewayConfig } from './config';

runMain('restbus-gateway', async () => {
  // A schema's pattern that backtracks catastrophically on a hostile value finishes in linear time (--validate).
  allowLinearRegExpFallback();
  const config = loadConfig<GatewayConfig>(gatewayProgram, { argv: process.argv.slice(2), env: process.env });
  if (config.dumpConfig) process.stdout.write(describeConfig(config));
  if (config.check) {
    process.exitCode = await checkApis(config, process.stdout);
    return;
  }
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
  const starting = startGateway(config, logger);
  // SIGHUP reloads the API files; a file that no longer loads is reported and the old routes keep serving. Reloads
  // are coalesced (one running, one queued), so a burst of signals costs two loads. The handler is there from the
  // start, since SIGHUP's default action ends the process: one that comes during the start reloads once it is up.
  process.on('SIGHUP', () => {
    void starting.then((gateway) => gateway.reload()).catch(() => false);
  });
  const gateway = await starting;
  onShutdownSignal(() => gateway.stop());
});
