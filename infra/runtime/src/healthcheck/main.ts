#!/usr/bin/env node
// Container health check of a NATS service: `restbus-healthcheck <service-name>`, NATS_URL says where NATS is, and
// NATS_CA, NATS_CERT, NATS_KEY, NATS_TLS and NATS_CREDS how to reach it, as for the service it checks.
// When RESTBUS_ID_FILE names the file where the service wrote its instance id, that very instance must answer.
import { readFileSync } from 'node:fs';
import { pingService } from './ping-service';

function readId(): string | undefined {
  try {
    return process.env.RESTBUS_ID_FILE ? readFileSync(process.env.RESTBUS_ID_FILE, 'utf8').trim() : undefined;
  } catch {
    return undefined; // not written yet: the service has not finished starting
  }
}

const service = process.argv[2];
if (!service) {
  process.stderr.write('usage: restbus-healthcheck <service-name>   (NATS_URL, default nats://localhost:4222)\n');
  process.exit(2);
}
const id = readId();
if (process.env.RESTBUS_ID_FILE && !id) {
  process.stderr.write(`${service} has not written its id yet\n`);
  process.exit(1);
}
const { NATS_CA, NATS_CERT, NATS_KEY, NATS_TLS, NATS_CREDS } = process.env;
const tlsFiles = {
  ...(NATS_CA ? { caFile: NATS_CA } : {}),
  ...(NATS_CERT ? { certFile: NATS_CERT } : {}),
  ...(NATS_KEY ? { keyFile: NATS_KEY } : {}),
};
const security = {
  ...(Object.keys(tlsFiles).length > 0 || NATS_TLS === 'true' ? { tls: tlsFiles } : {}),
  ...(NATS_CREDS ? { credsFile: NATS_CREDS } : {}),
};
pingService(process.env.NATS_URL || 'nats://localhost:4222', service, 2000, id, security).then(
  (answered) => {
    process.stdout.write(`${service} ${answered} answers\n`);
    process.exit(0);
  },
  (err: unknown) => {
    process.stderr.write(`${service} does not answer: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(1);
  },
);
