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
  const gateway = await startGateway(config, logger);
  // SIGHUP reloads the API files; a file that no longer loads is reported and the old routes keep serving.
  process.on('SIGHUP', () => void gateway.reload());
  onShutdownSignal(() => gateway.stop());
});
