import { execFile, spawn } from 'node:child_process';
import { promisify } from 'node:util';
import { DockerComposeEnvironment, Wait, type StartedDockerComposeEnvironment } from 'testcontainers';
import { E2E_TAG, REPO_ROOT, assertDockerAvailable, isStandaloneCompose, refreshOfflineImages } from './compose-stack';

const execFileAsync = promisify(execFile);

export const CLUSTER_COMPOSE_FILE = 'docker-compose.cluster.yml';
export const NATS_NODES = ['nats-1', 'nats-2', 'nats-3'] as const;
export const GATEWAYS = ['gateway-1', 'gateway-2'] as const;

export type NatsNode = (typeof NATS_NODES)[number];
export type Gateway = (typeof GATEWAYS)[number];
/** A service of docker-compose.cluster.yml; each runs as one container. */
export type ClusterService =
  NatsNode | Gateway | 'person-service-1' | 'person-service-2' | 'systems-service-1' | 'systems-service-2' | 'lb';

export interface ClusterStack {
  projectName: string;
  /** `http://<host>:<port>` of the load balancer in front of both gateways, on a host port Docker picked. */
  lbUrl: string;
  /** `nats://<host>:<port>` of one node, read when asked: a node that was started again has a new host port. */
  natsUrl(node: NatsNode): Promise<string>;
  /** SIGKILL, as a crash or a pulled plug: no goodbye to clients or peers. The container stays down until `start`. */
  kill(service: ClusterService): Promise<void>;
  /** SIGTERM, then SIGKILL after 10 s (`docker stop`). The container stays down until `start`. */
  stop(service: ClusterService): Promise<void>;
  /** Starts a killed or stopped container again (same volume) and resolves once its health check passes. */
  start(service: ClusterService): Promise<void>;
  /**
   * Lame duck mode (SIGUSR2): the node hands its streams' leadership over, moves its clients to the other nodes one
   * by one, and exits; resolves once it has exited (about one second per client, plus 2 s of grace).
   */
  enterLameDuck(node: NatsNode): Promise<void>;
  /** Resolves once the service's health check passes (at once if it does already). */
  waitUntilHealthy(service: ClusterService, timeoutMs?: number): Promise<void>;
  /** The node that leads a stream now (e.g. `KV_persons`), as any running node sees it; undefined during an election. */
  leaderOf(stream: string): Promise<NatsNode | undefined>;
  /** How many API requests a gateway has answered (its /-/metrics, read inside its container). */
  requestsServedBy(gateway: Gateway): Promise<number>;
  /** A gateway's /-/metrics text, read inside its container. */
  metricsOf(gateway: Gateway): Promise<string>;
  /** A NATS node's monitoring answer (`/varz`, `/jsz?streams=true` …), read inside its container. */
  monitorOf(node: NatsNode, path: string): Promise<unknown>;
  /** The instance id a service container's process answers `$SRV` requests under (the file RESTBUS_ID_FILE names). */
  instanceIdOf(service: ClusterService): Promise<string | undefined>;
  /** The memory each running container uses now (docker stats' MemUsage), by service. */
  memoryOf(): Promise<Map<ClusterService, string>>;
  /** The container's output so far (stdout and stderr), for a failing test's message. */
  logs(service: ClusterService): Promise<string>;
  /** Runs a compose command against this stack (same project, file and image tag); resolves to its stdout. */
  compose(args: string[]): Promise<string>;
  /** Stops and removes the containers, the network and the volumes. */
  down(): Promise<void>;
}

async function docker(args: string[], timeout = 60_000): Promise<string> {
  return (await execFileAsync('docker', args, { encoding: 'utf8', timeout, maxBuffer: 64 * 1024 * 1024 })).stdout;
}

/**
 * Waits for Docker's own health event rather than polling. Events since the call are replayed, however late the
 * subscription starts; a container that was healthy before it shows so in `inspect`.
 */
function waitForHealthy(container: string, timeoutMs: number): Promise<void> {
  const since = (Date.now() / 1000).toFixed(3);
  return new Promise((resolveWait, rejectWait) => {
    const events = spawn(
      'docker',
      ['events', '--since', since, '--filter', `container=${container}`, '--filter', 'event=health_status'],
      { stdio: ['ignore', 'pipe', 'ignore'] },
    );
    const finish = (error?: Error): void => {
      clearTimeout(timer);
      events.kill();
      if (error) rejectWait(error);
      else resolveWait();
    };
    const timer = setTimeout(
      () => finish(new Error(`${container} did not become healthy within ${timeoutMs} ms`)),
      timeoutMs,
    );
    events.stdout.on('data', (chunk: Buffer) => {
      if (chunk.toString().includes('health_status: healthy')) finish();
    });
    events.once('spawn', () => {
      docker(['inspect', '-f', '{{.State.Health.Status}}', container]).then(
        (status) => status.trim() === 'healthy' && finish(),
        (err: unknown) => finish(err instanceof Error ? err : new Error(String(err))),
      );
    });
  });
}

interface HealthLog {
  ExitCode: number;
  Output: string;
}

/** The health check's last answers and the container's last 40 lines of output, for a failing test's message. */
async function describeUnhealthy(container: string): Promise<string> {
  const checks = await docker(['inspect', '-f', '{{json .State.Health.Log}}', container]).then(
    (json) => (JSON.parse(json) as HealthLog[] | null) ?? [],
    () => [] as HealthLog[],
  );
  const lastChecks = checks
    .slice(-3)
    .map((check) => `  exit ${check.ExitCode}: ${check.Output.trim().slice(0, 300)}`)
    .join('\n');
  const output = await execFileAsync('docker', ['logs', '--tail', '40', container], {
    encoding: 'utf8',
    maxBuffer: 16 * 1024 * 1024,
  }).then(
    ({ stdout, stderr }) => stdout + stderr,
    (err: unknown) => `(no logs: ${String(err)})`,
  );
  return `last health checks:\n${lastChecks || '  none'}\nlast output of ${container}:\n${output}`;
}

/** Sums a Prometheus counter over all its label sets. */
function sumCounter(metrics: string, name: string): number {
  return metrics
    .split('\n')
    .filter((line) => line.startsWith(`${name}{`) || line.startsWith(`${name} `))
    .reduce((sum, line) => sum + Number(line.slice(line.lastIndexOf(' ') + 1)), 0);
}

interface Jsz {
  account_details?: Array<{ stream_detail?: Array<{ name: string; cluster?: { leader?: string } }> }>;
}

/**
 * Builds and starts docker-compose.cluster.yml under a fresh project name (`restbuse2ecl…`, which CI's cleanup
 * removes when a killed run left it behind) and resolves once every container is healthy.
 */
export async function startClusterStack(): Promise<ClusterStack> {
  assertDockerAvailable();
  refreshOfflineImages();
  const standalone = isStandaloneCompose();
  const projectName = `restbuse2ecl${Date.now().toString(36)}`;
  // Empty host ports: Docker picks free ones.
  const stackEnvironment = { GATEWAY_HOST_PORT: '', LB_STATS_HOST_PORT: '', RESTBUS_TAG: E2E_TAG };
  const environment: StartedDockerComposeEnvironment = await new DockerComposeEnvironment(
    REPO_ROOT,
    CLUSTER_COMPOSE_FILE,
  )
    .withProjectName(projectName)
    .withBuild()
    .withEnvironment(stackEnvironment)
    .withClientOptions(standalone ? { executable: { standalone: true } } : {})
    .withDefaultWaitStrategy(Wait.forHealthCheck())
    .withStartupTimeout(240_000)
    .up();
  const containerOf = (service: ClusterService): string =>
    standalone ? `${projectName}_${service}_1` : `${projectName}-${service}-1`;
  const lb = environment.getContainer(standalone ? containerOf('lb') : 'lb-1');
  const isRunning = async (service: ClusterService): Promise<boolean> =>
    (await docker(['inspect', '-f', '{{.State.Running}}', containerOf(service)])).trim() === 'true';
  const waitUntilHealthy = async (service: ClusterService, timeoutMs = 90_000): Promise<void> => {
    try {
      await waitForHealthy(containerOf(service), timeoutMs);
    } catch (err) {
      // What the health check last answered and what the container last said: the only trace of a node that
      // never came back once the stack is down.
      throw new Error(`${(err as Error).message}\n${await describeUnhealthy(containerOf(service))}`);
    }
  };
  const metricsOf = (gateway: Gateway): Promise<string> => {
    const script =
      "fetch('http://127.0.0.1:3007/-/metrics').then((r) => r.text()).then((t) => process.stdout.write(t))";
    return docker(['exec', containerOf(gateway), 'node', '-e', script], 20_000);
  };
  const monitorOf = async (node: NatsNode, path: string): Promise<unknown> =>
    JSON.parse(await docker(['exec', containerOf(node), 'wget', '-qO-', `http://127.0.0.1:8222${path}`], 10_000));

  return {
    projectName,
    lbUrl: `http://${lb.getHost()}:${lb.getMappedPort(3007)}`,
    natsUrl: async (node) => `nats://${(await docker(['port', containerOf(node), '4222'])).split('\n')[0].trim()}`,
    kill: async (service) => {
      await docker(['kill', containerOf(service)]);
    },
    stop: async (service) => {
      await docker(['stop', '-t', '10', containerOf(service)]);
    },
    start: async (service) => {
      await docker(['start', containerOf(service)]);
      await waitUntilHealthy(service);
    },
    enterLameDuck: async (node) => {
      await docker(['kill', '-s', 'SIGUSR2', containerOf(node)]);
      // nats-server's own bound is lame_duck_duration (30 s); docker wait returns when the process has exited.
      await docker(['wait', containerOf(node)], 60_000);
    },
    waitUntilHealthy,
    leaderOf: async (stream) => {
      for (const node of NATS_NODES) {
        if (!(await isRunning(node))) continue;
        let jsz: Jsz;
        try {
          jsz = (await monitorOf(node, '/jsz?streams=true')) as Jsz;
        } catch {
          continue; // a node that is starting or leaving: ask the next
        }
        const detail = jsz.account_details?.flatMap((account) => account.stream_detail ?? []);
        const leader = detail?.find((candidate) => candidate.name === stream)?.cluster?.leader;
        if (leader) return NATS_NODES.find((name) => name === leader);
      }
      return undefined;
    },
    requestsServedBy: async (gateway) => sumCounter(await metricsOf(gateway), 'restbus_gateway_requests_total'),
    metricsOf,
    monitorOf,
    instanceIdOf: async (service) =>
      (await docker(['exec', containerOf(service), 'cat', '/tmp/restbus-service.id'], 10_000).catch(() => '')).trim() ||
      undefined,
    memoryOf: async () => {
      const services: ClusterService[] = [
        ...NATS_NODES,
        ...GATEWAYS,
        'person-service-1',
        'person-service-2',
        'systems-service-1',
        'systems-service-2',
        'lb',
      ];
      const byName = new Map(services.map((service) => [containerOf(service), service]));
      const lines = await docker([
        'stats',
        '--no-stream',
        '--format',
        '{{.Name}}\t{{.MemUsage}}',
        ...byName.keys(),
      ]).catch(() => '');
      const memory = new Map<ClusterService, string>();
      for (const line of lines.split('\n')) {
        const [name, usage] = line.split('\t');
        const service = byName.get(name);
        if (service && usage) memory.set(service, usage);
      }
      return memory;
    },
    logs: async (service) => {
      const { stdout, stderr } = await execFileAsync('docker', ['logs', containerOf(service)], {
        encoding: 'utf8',
        maxBuffer: 64 * 1024 * 1024,
      });
      return stdout + stderr;
    },
    compose: async (args) =>
      (
        await execFileAsync(
          standalone ? 'docker-compose' : 'docker',
          [...(standalone ? [] : ['compose']), '-p', projectName, '-f', CLUSTER_COMPOSE_FILE, ...args],
          { cwd: REPO_ROOT, env: { ...process.env, ...stackEnvironment }, encoding: 'utf8', timeout: 300_000 },
        )
      ).stdout,
    down: async () => {
      await environment.down({ removeVolumes: true, timeout: 10_000 });
    },
  };
}
