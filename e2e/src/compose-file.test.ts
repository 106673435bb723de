import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

interface ComposeService {
  restart?: string;
  profiles?: string[];
  healthcheck?: unknown;
}

const compose = parse(readFileSync(resolve(__dirname, '../../docker-compose.yml'), 'utf8'), {
  merge: true,
}) as { services: Record<string, ComposeService> };

const longRunning = Object.entries(compose.services).filter(([, service]) => !service.profiles);

describe('the compose file', () => {
  it('has the long-running services of the stack (NATS, two person services, systems, gateway, mock server)', () => {
    expect(longRunning.map(([name]) => name).sort()).toEqual([
      'gateway',
      'mock-server',
      'nats',
      'person-service-1',
      'person-service-2',
      'systems-service',
    ]);
  });

  it.each(longRunning.map(([name]) => name))(
    'brings %s back when it dies, and lets `docker compose stop` stop it',
    (name) => {
      expect(compose.services[name].restart).toBe('unless-stopped');
    },
  );
});
