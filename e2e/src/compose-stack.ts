import { execFile, execFileSync } from 'node:child_process';
import { promisify } from 'node:util';
import { existsSync, readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { DockerComposeEnvironment, Wait, type StartedDockerComposeEnvironment } from 'testcontainers';

const execFileAsync = promisify(execFile);

export const REPO_ROOT = resolve(__dirname, '../..');
/** Images of the e2e stacks get their own tag, so that a run never replaces the images of a user's stack. */
export const E2E_TAG = 'e2e';

export interface ComposeStack {
  /** `http://<host>:<port>` of the gateway, on a host port Docker picked. */
  gatewayUrl: string;
  /** `http://<host>:<port>` of the mock server serving examples/crm-api. */
  mockUrl: string;
  /** Profile `auth`: `http://<host>:<port>` of the gateway verifying tokens, and of the development issuer. */
  securedGatewayUrl: string;
  issuerUrl: string;
  /** The stack's network: containers started beside it reach the services by name. */
  network: string;
  /** Runs a compose command against this stack (same project name, files and image tag); resolves to its stdout. */
  compose(args: string[], env?: Record<string, string>): Promise<string>;
  /** `nats://<host>:<port>` of the stack's NATS server (a restart gives it a new host port). */
  natsUrl(): string;
  /** Stops one service's container gracefully (SIGTERM, 10 s before SIGKILL) and removes it. */
  stopService(service: string): Promise<void>;
  /**
   * Kills and restarts one service's container, as a crash would (its volumes stay), and resolves once it runs: the
   * caller waits for what it needs (its answers), not for the health check, which runs every 10 s.
   */
  restartService(service: string): Promise<void>;
  projectName: string;
  /** Stops and removes the containers, the network and the volumes. */
  down(): Promise<void>;
}

function runs(command: string, args: string[]): boolean {
  try {
    execFileSync(command, args, { stdio: 'ignore', timeout: 20_000 });
    return true;
  } catch {
    return false;
  }
}

/** Fails with a clear message when no engine answers: a missing engine is a failure, never a skipped test. */
export function assertDockerAvailable(): void {
  if (!runs('docker', ['info'])) {
    throw new Error(
      'The e2e tests need a running Docker engine and none answers (`docker info` failed). ' +
        'Start Docker, or on a Debian machine without it run `sudo bash infra/scripts/prepare-docker.sh`.',
    );
  }
}

/** Compose v2 (`docker compose`) when the CLI has it, else the standalone v1 `docker-compose`. */
export function isStandaloneCompose(): boolean {
  if (process.env.COMPOSE_STANDALONE) return process.env.COMPOSE_STANDALONE === 'true';
  if (runs('docker', ['compose', 'version'])) return false;
  if (runs('docker-compose', ['version'])) return true;
  throw new Error('Neither `docker compose` (v2) nor `docker-compose` (v1) is installed.');
}

/**
 * On a machine prepared for offline builds (its `.env` was written by infra/scripts/prepare-docker.sh), runs the
 * script again first: it does nothing in half a second, or re-seeds the npm cache image after a lockfile change,
 * which `npm ci` inside the image build would otherwise fail on.
 */
export function refreshOfflineImages(): void {
  const envFile = resolve(REPO_ROOT, '.env');
  if (!existsSync(envFile) || !readFileSync(envFile, 'utf8').startsWith('# written by infra/scripts/prepare-docker.sh'))
    return;
  try {
    execFileSync('bash', [resolve(REPO_ROOT, 'infra/scripts/prepare-docker.sh')], {
      stdio: ['ignore', 'ignore', 'pipe'],
      timeout: 300_000,
    });
  } catch (err) {
    const stderr = (err as { stderr?: Buffer }).stderr?.toString() ?? '';
    throw new Error(`infra/scripts/prepare-docker.sh failed, so the images cannot be built offline:\n${stderr}`);
  }
}

/**
 * Builds and starts the repository's docker-compose.yml, its profile `auth` included, under a fresh project name and
 * waits until it is healthy.
 */
export async function startComposeStack(): Promise<ComposeStack> {
  assertDockerAvailable();
  refreshOfflineImages();
  const standalone = isStandaloneCompose();
  const projectName = `restbuse2e${Date.now().toString(36)}`;
  // Empty host ports: Docker picks free ones. Every reply the suite sees must meet the API descriptions.
  const stackEnvironment = {
    GATEWAY_HOST_PORT: '',
    MOCK_HOST_PORT: '',
    SECURED_GATEWAY_HOST_PORT: '',
    ISSUER_HOST_PORT: '',
    // Every compose command of the suite sees the same services (v1 reads it from 1.28 on).
    COMPOSE_PROFILES: 'auth',
    RESTBUS_TAG: E2E_TAG,
    GATEWAY_VALIDATE_REPLIES: 'enforce',
  };
  const files = ['docker-compose.yml', 'e2e/docker-compose.e2e.yml'];
  const environment: StartedDockerComposeEnvironment = await new DockerComposeEnvironment(REPO_ROOT, files)
    .withProjectName(projectName)
    .withProfiles('auth')
    .withBuild()
    .withEnvironment(stackEnvironment)
    .withClientOptions(standalone ? { executable: { standalone: true } } : {})
    .withDefaultWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(180_000)
    .up();
  const container = (service: string) =>
    environment.getContainer(standalone ? `${projectName}_${service}_1` : `${service}-1`);
  const gateway = container('gateway');
  const nats = container('nats');
  const mock = container('mock-server');
  const securedGateway = container('secured-gateway');
  const issuer = container('oidc-issuer');
  let natsAddress = `${nats.getHost()}:${nats.getMappedPort(4222)}`;
  return {
    mockUrl: `http://${mock.getHost()}:${mock.getMappedPort(3008)}`,
    securedGatewayUrl: `http://${securedGateway.getHost()}:${securedGateway.getMappedPort(3007)}`,
    issuerUrl: `http://${issuer.getHost()}:${issuer.getMappedPort(8080)}`,
    network: `${projectName}_default`,
    // Not execFileSync: a blocked event loop keeps idle keep-alive sockets past the server's timeout, and the next
    // fetch on one of them fails.
    compose: async (args, env = {}) =>
      (
        await execFileAsync(
          standalone ? 'docker-compose' : 'docker',
          [...(standalone ? [] : ['compose']), '-p', projectName, ...files.flatMap((file) => ['-f', file]), ...args],
          { cwd: REPO_ROOT, env: { ...process.env, ...stackEnvironment, ...env }, encoding: 'utf8', timeout: 300_000 },
        )
      ).stdout,
    gatewayUrl: `http://${gateway.getHost()}:${gateway.getMappedPort(3007)}`,
    natsUrl: () => `nats://${natsAddress}`,
    stopService: async (service) => {
      // testcontainers' default is `docker stop -t 0`, a SIGKILL: no chance to drain.
      await container(service).stop({ timeout: 10_000 });
    },
    restartService: async (service) => {
      // Not testcontainers' restart, which waits for the next passing health check (up to 10 s for a Node program's).
      const id = container(service).getId();
      await execFileAsync('docker', ['restart', '-t', '0', id], { timeout: 60_000 });
      if (service === 'nats') {
        // A restarted container gets new host ports.
        const published = await execFileAsync('docker', ['port', id, '4222/tcp'], {
          encoding: 'utf8',
          timeout: 20_000,
        });
        natsAddress = `${nats.getHost()}:${published.stdout.split('\n')[0].trim().split(':').pop()}`;
      }
    },
    projectName,
    down: async () => {
      await environment.down({ removeVolumes: true, timeout: 10_000 });
    },
  };
}
