#!/usr/bin/env node
import { once } from 'node:events';
import { createServer } from 'node:http';
import { createLogger, createNatsLink, loadConfig, onShutdownSignal, runMain } from '@restbus/infra';
import { gatewayProgram, type GatewayConfig } from './config';
import { createForwarder } from './forward/create-forwarder';
import { createGateway } from './http/create-gateway';
import { createMetrics } from './observability/create-metrics';
import { loadApis } from './openapi/load-api';
import { createRequestValidator } from './validation/create-request-validator';

runMain('restbus-gateway', async () => {
  const config = loadConfig<GatewayConfig>(gatewayProgram, { argv: process.argv.slice(2), env: process.env });
  const logger = createLogger({ name: 'restbus-gateway', level: config.logLevel });
  const endpoints = await loadApis(config.restApiPath);
  // The gateway serves even while NATS is away: calls answer 503 until the link is up.
  const link = config.useMessaging
    ? createNatsLink({ servers: config.natsUri, name: 'restbus-gateway', logger })
    : undefined;
  const validator = config.validate ? createRequestValidator(endpoints) : undefined;
  for (const reason of validator?.skipped() ?? []) logger.warn({ reason }, 'operation left unvalidated');
  const gateway = createGateway({
    endpoints,
    topicPrefix: config.topicPrefix,
    basePath: config.basePath,
    bodyLimit: config.bodyLimit,
    forward: link && createForwarder({ link, timeoutMs: config.timeout }),
    isConnected: () => !link || link.isConnected(),
    corsOrigins: config.cors
      ?.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    validate: validator?.validate,
    metrics: createMetrics(),
    logger,
  });
  const server = createServer(gateway.handle);
  server.listen(config.port);
  await once(server, 'listening');
  logger.info(
    { port: config.port, endpoints: endpoints.length, forwarding: config.useMessaging, files: config.restApiPath },
    'gateway listening',
  );

  // SIGHUP reloads the API files; a file that no longer loads is reported and the old routes keep serving.
  process.on('SIGHUP', () => {
    loadApis(config.restApiPath).then(
      (reloaded) => {
        validator?.setEndpoints(reloaded);
        gateway.setEndpoints(reloaded);
        logger.info({ endpoints: reloaded.length }, 'API reloaded');
      },
      (err: unknown) => logger.error({ err }, 'API reload failed; the previous endpoints keep serving'),
    );
  });

  onShutdownSignal(async () => {
    logger.info({ inFlight: gateway.inFlight() }, 'shutting down');
    gateway.beginShutdown();
    server.close();
    server.closeIdleConnections();
    // Requests in flight finish, bounded by the reply timeout.
    const deadline = Date.now() + config.timeout + 1000;
    while (gateway.inFlight() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
    server.closeAllConnections();
    await link?.drain();
    logger.info('stopped');
  });
});
