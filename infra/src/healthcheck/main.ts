#!/usr/bin/env node
// Container health check of a NATS service: `restbus-healthcheck <service-name>`, NATS_URL says where NATS is.
import { pingService } from './ping-service';

const service = process.argv[2];
if (!service) {
  process.stderr.write('usage: restbus-healthcheck <service-name>   (NATS_URL, default nats://localhost:4222)\n');
  process.exit(2);
}
pingService(process.env.NATS_URL || 'nats://localhost:4222', service, 2000).then(
  (id) => {
    process.stdout.write(`${service} ${id} answers\n`);
    process.exit(0);
  },
  (err: unknown) => {
    process.stderr.write(`${service} does not answer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
