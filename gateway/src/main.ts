#!/usr/bin/env node
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createLogger, createNatsLink, loadConfig, onShutdownSignal, runMain } from '@restbus/infra';
import { gatewayProgram, type GatewayConfig } from './config';
import { createForwarder } from './forward/create-forwarder';
import { createApp } from './http/create-app';
import { loadApi } from './openapi/load-api';

runMain('restbus-gateway', async () => {
  const config = loadConfig<GatewayConfig>(gatewayProgram, { argv: process.argv.slice(2), env: process.env });
  const logger = createLogger({ name: 'restbus-gateway', level: config.logLevel });
  const endpoints = await loadApi(config.restApiPath);
  // The gateway serves even while NATS is away: calls answer 503 until the link is up.
  const link = config.useMessaging
    ? createNatsLink({ servers: config.natsUri, name: 'restbus-gateway', logger })
    : undefined;
  const app = createApp({
    endpoints,
    topicPrefix: config.topicPrefix,
    basePath: config.basePath,
    bodyLimit: config.bodyLimit,
    forward: link && createForwarder({ link, timeoutMs: config.timeout, logger }),
    isReady: () => !link || link.isConnected(),
    logger,
  });
  const server = createServer(app);
  server.listen(config.port);
  await once(server, 'listening');
  logger.info(
    { port: config.port, endpoints: endpoints.length, forwarding: config.useMessaging, file: config.restApiPath },
    'gateway listening',
  );

  onShutdownSignal(async () => {
    logger.info('shutting down');
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await link?.drain();
  });
});
