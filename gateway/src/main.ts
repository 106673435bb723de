#!/usr/bin/env node
import { createLogger, loadConfig, onShutdownSignal, runMain } from '@restbus/infra';
import { checkApis } from './app/check-apis';
import { describeConfig } from './app/describe-config';
import { startGateway } from './app/start-gateway';
import { gatewayProgram, type GatewayConfig } from './config';

runMain('restbus-gateway', async () => {
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
