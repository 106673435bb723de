import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { parse } from 'yaml';

interface ComposeService {
  restart?: string;
  profiles?: string[];
  healthcheck?: { test: string[]; interval: string };
  environment?: Record<string, string>;
  volumes?: string[];
  command?: string[];
  ports?: string[];
  image?: string;
}

function readCompose(file: string): { services: Record<string, ComposeService> } {
  return parse(readFileSync(resolve(__dirname, '../..', file), 'utf8'), { merge: true }) as {
    services: Record<string, ComposeService>;
  };
}

function longRunningOf(compose: { services: Record<string, ComposeService> }): string[] {
  return Object.entries(compose.services)
    .filter(([, service]) => !service.profiles)
    .map(([name]) => name);
}

/** Seconds in a compose duration such as `10s`, `1m30s` or `500ms`. */
function secondsOf(duration: string): number {
  const units: Record<string, number> = { h: 3600, m: 60, s: 1, ms: 0.001, us: 1e-6 };
  const parts = [...duration.matchAll(/(\d+(?:\.\d+)?)(h|ms|us|m|s)/g)];
  if (parts.length === 0) throw new Error(`not a compose duration: ${duration}`);
  return parts.reduce((sum, [, amount, unit]) => sum + Number(amount) * units[unit], 0);
}

/**
 * Docker starts every check as a process in the container (some 0.13 CPU-s for the start alone), and a Node check
 * costs 0.15-0.5 CPU-s more: at 2 s for every container an idle stack kept more than one of two cores busy (issue 45).
 * Checks that start Node run at most every 10 s, and none loads fetch (undici, three times node:http's cost).
 */
function describeHealthCheckCost(file: string): void {
  const compose = readCompose(file);
  const checked = longRunningOf(compose).filter((name) => compose.services[name].healthcheck);

  it.each(checked)("runs %s's health check no more often than its cost allows", (name) => {
    const { test, interval } = compose.services[name].healthcheck!;
    const startsNode = test[1] === 'node';
    expect(secondsOf(interval)).toBeGreaterThanOrEqual(startsNode ? 10 : 2);
    if (startsNode) expect(test.join(' ')).not.toMatch(/\bfetch\(/);
  });
}

describe('the compose file', () => {
  const compose = readCompose('docker-compose.yml');

  describeHealthCheckCost('docker-compose.yml');

  it('has the long-running services of the stack (NATS, two person services, systems, gateway, mock server)', () => {
    expect(longRunningOf(compose).sort()).toEqual([
      'gateway',
      'mock-server',
      'nats',
      'person-service-1',
      'person-service-2',
      'systems-service',
    ]);
  });

  it.each(longRunningOf(compose))('brings %s back when it dies, and lets `docker compose stop` stop it', (name) => {
    expect(compose.services[name].restart).toBe('unless-stopped');
  });
});

describe("the compose file's profile auth", () => {
  const compose = readCompose('docker-compose.yml');
  const inProfile = Object.entries(compose.services)
    .filter(([, service]) => service.profiles?.includes('auth'))
    .map(([name]) => name);

  it('adds a gateway that verifies tokens and the development issuer it discovers, nothing else', () => {
    expect(inProfile.sort()).toEqual(['oidc-issuer', 'secured-gateway']);
    const gateway = compose.services['secured-gateway'];
    expect(gateway.command?.join(' ')).toMatch(/ -u --auth verify\b/);
    const document = readFileSync(resolve(__dirname, '../../examples/secured-persons/secured-persons-api.yml'), 'utf8');
    // The issuer the contract names is the one the issuer says its tokens come from.
    expect(document).toContain(
      `openIdConnectUrl: ${compose.services['oidc-issuer'].environment?.DEV_ISSUER_URL}/.well-known/openid-configuration`,
    );
  });

  it.each(inProfile)(
    'brings %s back when it dies, and checks its health no more often than a Node check allows',
    (name) => {
      const service = compose.services[name];
      expect(service.restart).toBe('unless-stopped');
      expect(service.healthcheck?.test[1]).toBe('node');
      expect(secondsOf(service.healthcheck!.interval)).toBeGreaterThanOrEqual(10);
      expect(service.healthcheck!.test.join(' ')).not.toMatch(/\bfetch\(/);
    },
  );
});

describe("the compose file's profile tracing", () => {
  const compose = readCompose('docker-compose.yml');
  const traced = ['person-service-1', 'person-service-2', 'systems-service', 'gateway', 'secured-gateway'];

  it('adds Jaeger alone, its UI on loopback, its image a variable', () => {
    const inProfile = Object.entries(compose.services).filter(([, service]) => service.profiles?.includes('tracing'));
    expect(inProfile.map(([name]) => name)).toEqual(['jaeger']);
    const jaeger = compose.services.jaeger;
    expect(jaeger.image).toBe('${JAEGER_IMAGE:-jaegertracing/jaeger:2.21.0}');
    expect(jaeger.ports).toEqual(['${JAEGER_BIND:-127.0.0.1}:${JAEGER_HOST_PORT-16686}:16686']);
    expect(jaeger.command?.join(' ')).toContain('receivers.otlp.protocols.http.endpoint=0.0.0.0:4318');
  });

  it.each(traced)("passes OpenTelemetry's variables to %s, tracing off unless an endpoint is given", (name) => {
    const environment = compose.services[name].environment ?? {};
    expect(environment.OTEL_EXPORTER_OTLP_ENDPOINT).toBe('${OTEL_EXPORTER_OTLP_ENDPOINT:-}');
    expect(environment.OTEL_TRACES_SAMPLER).toBe('${OTEL_TRACES_SAMPLER:-parentbased_always_on}');
  });
});

describe('the cluster compose file', () => {
  const compose = readCompose('docker-compose.cluster.yml');
  const natsNodes = ['nats-1', 'nats-2', 'nats-3'];
  const natsClients = [
    'gateway-1',
    'gateway-2',
    'person-service-1',
    'person-service-2',
    'systems-service-1',
    'systems-service-2',
  ];

  it('has three NATS nodes, two gateways behind a load balancer and two replicas of each service', () => {
    expect(longRunningOf(compose).sort()).toEqual([...natsClients, 'lb', ...natsNodes].sort());
  });

  it.each(longRunningOf(compose))('brings %s back when it dies, and lets `docker compose stop` stop it', (name) => {
    expect(compose.services[name].restart).toBe('unless-stopped');
  });

  it.each(longRunningOf(compose))('gives %s a health check', (name) => {
    expect(compose.services[name].healthcheck).toBeDefined();
  });

  describeHealthCheckCost('docker-compose.cluster.yml');

  it.each(natsClients)('gives %s every NATS node, so that it can move when one leaves', (name) => {
    expect(compose.services[name].environment?.NATS_URL).toBe(
      'nats://nats-1:4222,nats://nats-2:4222,nats://nats-3:4222',
    );
  });

  it('keeps each NATS node on a volume of its own, under its own server name', () => {
    const volumes = natsNodes.map((node) =>
      compose.services[node].volumes?.find((volume) => volume.endsWith(':/data')),
    );
    expect(volumes).toEqual(['nats-1-data:/data', 'nats-2-data:/data', 'nats-3-data:/data']);
    expect(natsNodes.map((node) => compose.services[node].environment?.NATS_SERVER_NAME)).toEqual(natsNodes);
  });

  it.each(['gateway-1', 'gateway-2'])(
    'has %s serve the rate-limited example and read its client from HAProxy alone',
    (name) => {
      const gateway = compose.services[name];
      expect(gateway.command?.join(' ')).toContain('-r /api/limited-persons-api.yml');
      expect(gateway.volumes).toContain(
        './examples/limited-persons/limited-persons-api.yml:/api/limited-persons-api.yml:ro',
      );
      expect(gateway.environment?.GATEWAY_RATE_LIMIT_TRUSTED_PROXIES).toBe('uniquelocal');
      // Trusting the stack's network is safe only while no gateway is reachable from outside it but through HAProxy.
      expect(gateway.ports).toBeUndefined();
    },
  );

  it("has HAProxy replace a caller's X-Forwarded-For, never append to it, so no client picks its own count", () => {
    const config = readFileSync(resolve(__dirname, '../../infra/docker/lb/haproxy.cfg'), 'utf8');
    expect(config).toMatch(/^\s*http-request set-header X-Forwarded-For %\[src\]$/m);
    expect(config).not.toMatch(/^\s*option forwardfor/m);
  });
});
