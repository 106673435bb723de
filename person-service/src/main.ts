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
  const config = loadConfig<PersonServiceConfig>(personServiceProgram, {
    argv: process.argv.slice(2),
    env: process.env,
  });
  const logger = createLogger({ name: 'person-service', level: config.logLevel });
  const link = createNatsLink({ servers: config.natsUri, name: 'person-service', logger });
  // Stopped in reverse order of start; a signal during startup stops what has started so far.
  const stops: Array<() => Promise<void>> = [() => link.drain()];
  onShutdownSignal(async () => {
    logger.info('shutting down');
    for (const stop of stops.reverse()) await stop();
  });
  const nc = await link.ready();
  const responder: Responder = await startResponder({
    nc,
    logger,
    name: 'person-service',
    version: readPackageVersion(__dirname),
    description: 'The person API',
    topicPrefix: config.topicPrefix,
    routes: createPersonRoutes(createMemoryPersonStore()),
  });
  stops.push(() => responder.stop());
  logger.info({ subjects: responder.subjects }, 'person-service answering');
});
