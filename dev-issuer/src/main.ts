#!/usr/bin/env node
import { createLogger, loadConfig, onShutdownSignal, runMain } from '@restbus/infra';
import { devIssuerProgram, type DevIssuerConfig } from './dev-issuer-program';
import { startDevIssuer } from './start-dev-issuer';

runMain(devIssuerProgram.name, async () => {
  const config = loadConfig<DevIssuerConfig>(devIssuerProgram, { argv: process.argv.slice(2), env: process.env });
  const logger = createLogger({
    name: 'dev-issuer',
    level: config.logLevel,
    format: config.logFormat,
    terminal: process.stdout.isTTY,
  });
  const running = await startDevIssuer(config, logger);
  onShutdownSignal(() => running.stop());
  logger.info(
    { port: running.port, issuer: running.issuer, discovery: `${running.issuer}/.well-known/openid-configuration` },
    'dev issuer listening: it signs a token for anyone who asks, never use it in production',
  );
});
