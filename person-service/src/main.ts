#!/usr/bin/env node
import {
  createLogger,
  createNatsLink,
  loadConfig,
  onShutdownSignal,
  readPackageVersion,
  runMain,
  startResponder,
  type Responder,
} from '@restbus/infra';
import { personServiceProgram, type PersonServiceConfig } from './config';
import { createPersonRoutes } from './persons/person-routes';
import { createMemoryPersonStore } from './persons/person-store';

runMain('person-service', async () => {
  const config = loadConfig<PersonServiceConfig>(personServiceProgram, { argv: process.argv.slice(2), env: process.env });
  const logger = createLogger({ name: 'person-service', level: config.logLevel });
  const link = createNatsLink({ servers: config.natsUri, name: 'person-service', logger });
  let responder: Responder | undefined;
  onShutdownSignal(async () => {
    logger.info('shutting down');
    await responder?.stop();
    await link.drain();
  });
  const nc = await link.ready();
  responder = await startResponder({
    nc,
    logger,
    name: 'person-service',
    version: readPackageVersion(__dirname),
    description: 'The person API',
    topicPrefix: config.topicPrefix,
    routes: createPersonRoutes(createMemoryPersonStore()),
  });
  logger.info({ subjects: responder.subjects }, 'person-service answering');
});
