#!/usr/bin/env node
import { readPackageVersion, runExecutive } from '@restbus/infra';
import { register } from './generated/contract';
import { createHandlers } from './handlers';

const version = readPackageVersion(__dirname);
runExecutive({
  name: "greetings",
  version,
  description: "Greetings: the NATS service of ../../examples/greetings-api.yml",
  startups: [register(createHandlers, { name: "greetings", version })],
});
