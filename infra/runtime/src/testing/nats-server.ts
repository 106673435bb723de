import { connect, type NatsConnection } from 'nats';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';

export interface TestNatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** The server process, while it runs. */
  readonly pid: number | undefined;
  /** Stops the server; the store directory survives until `dispose`. */
  stop(): Promise<void>;
  /** Kills the server (SIGKILL): no goodbye to clients or peers. */
  kill(): Promise<void>;
  /** Puts the server in lame duck mode (SIGUSR2) and resolves once it has closed every client and exited. */
  enterLameDuck(): Promise<void>;
  /** Puts the server in lame duck mode (SIGUSR2) and returns at once, while it still holds its clients. */
  signalLameDuck(): void;
  /** The server's last lines of output (for a failing test's message). */
  output(): string;
  /** Starts the server again on the same port and store (after `stop`). */
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  dispose(): Promise<void>;
}

/** Where a cluster member listens for routes and which routes it dials (every member's, its own included). */
export interface ClusterMembership {
  name: string;
  clientPort: number;
  routePort: number;
  routes: string[];
  lameDuckSeconds?: number;
}

const NOT_FOUND =
  'nats-server was not found on PATH. The integration tests need a real NATS server: install it ' +
  '(Debian: apt-get install nats-server, or run infra/scripts/prepare-docker.sh as root).';

async function waitForPortsFile(dir: string, child: ChildProcess, output: () => string): Promise<number> {
  const file = join(dir, `nats-server_${child.pid}.ports`);
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}: ${output()}`);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text) {
      const url = (JSON.parse(text) as { nats: string[] }).nats[0];
      return Number(new URL(url).port);
    }
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nats-server did not report its port within 5 s: ${output()}`);
}

function spawnServer(config: string): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('nats-server', ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    child.stdout?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('error', (err: NodeJS.ErrnoException) => reject(err.code === 'ENOENT' ? new Error(NOT_FOUND) : err));
    child.once('spawn', () => resolve({ child, output: () => output.slice(-2000) }));
  });
}

/**
 * Waits until JetStream answers: the client port opens first, and on a restart JetStream is still recovering its
 * store for a while, when a KV request would time out. A test starts once the server is whole.
 */
async function waitForJetStream(url: string, output: () => string): Promise<void> {
  const deadline = Date.now() + 15_000;
  for (;;) {
    let nc: NatsConnection | undefined;
    try {
      nc = await connect({ servers: url, timeout: 1000 });
      await nc.jetstreamManager({ timeout: 1000 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw new Error(`JetStream did not become ready: ${String(err)}\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await nc?.close();
    }
  }
}

async function stopChild(child: ChildProcess | undefined, signal: NodeJS.Signals = 'SIGTERM'): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill(signal);
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a real nats-server (with JetStream, on a port it picks itself) for a test, in a fresh directory.
 * Fails with a clear message when nats-server is not installed: a missing server is never a skipped test.
 */
export async function startNatsServer(
  options: {
    maxPayload?: number;
    name?: string;
    cluster?: ClusterMembership;
    /** Lines appended to the server's configuration (users and permissions, say). */
    extraConfig?: string;
  } = {},
): Promise<TestNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-nats-'));
  let port = options.cluster?.clientPort ?? -1;
  const writeConfig = async (): Promise<string> => {
    const config = join(dir, 'nats-server.conf');
    const store = join(dir, 'jetstream');
    const { cluster } = options;
    await writeFile(
      config,
      `listen: "127.0.0.1:${port}"\nports_file_dir: "${dir}"\njetstream { store_dir: "${store}" }\n` +
        (options.name ? `server_name: "${options.name}"\n` : '') +
        (options.maxPayload ? `max_payload: ${options.maxPayload}\n` : '') +
        (cluster
          ? `cluster { name: "${cluster.name}", listen: "127.0.0.1:${cluster.routePort}", routes: [${cluster.routes
              .map((route) => `"${route}"`)
              .join(', ')}] }\nlame_duck_duration: "${cluster.lameDuckSeconds ?? 30}s"\nlame_duck_grace_period: "1s"\n`
          : '') +
        (options.extraConfig ? `${options.extraConfig}\n` : ''),
    );
    return config;
  };
  let child: ChildProcess | undefined;
  let output = (): string => '';
  const start = async ({ waitForJetStream: wait = true } = {}): Promise<void> => {
    const spawned = await spawnServer(await writeConfig());
    child = spawned.child;
    output = spawned.output;
    port = await waitForPortsFile(dir, spawned.child, spawned.output);
    if (wait) await waitForJetStream(`nats://127.0.0.1:${port}`, spawned.output);
  };
  await (options.cluster ? start({ waitForJetStream: false }) : start());
  return {
    get pid() {
      return child && child.exitCode === null && child.signalCode === null ? child.pid : undefined;
    },
    get url() {
      return `nats://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    stop: () => stopChild(child),
    kill: () => stopChild(child, 'SIGKILL'),
    async enterLameDuck() {
      if (!child || child.exitCode !== null) return;
      const exited = new Promise((resolve) => child?.once('exit', resolve));
      child.kill('SIGUSR2');
      await exited;
    },
    signalLameDuck() {
      if (child && child.exitCode === null && child.signalCode === null) child.kill('SIGUSR2');
    },
    output: () => output(),
    start: () => start(),
    async dispose() {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}

function findFreePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as AddressInfo;
      server.close(() => resolve(port));
    });
  });
}

export interface TestNatsCluster {
  readonly nodes: readonly TestNatsServer[];
  /** Every node's URL, comma-separated: what `-n` takes. */
  readonly urls: string;
  /** The live node that leads a stream, once one does (asked of every live node until one names it). */
  leaderOf(stream: string): Promise<TestNatsServer>;
  dispose(): Promise<void>;
}

/**
 * Starts three (or `size`) real nats-servers with routes to each other and JetStream clustered, and resolves once
 * JetStream answers on every node. Ports are chosen free and kept, so a node that is stopped starts again where
 * it was. Lame duck mode lasts `lameDuckSeconds` (30 s by default, as nats-server's own default is 2 min).
 */
export async function startNatsCluster(
  options: { size?: number; lameDuckSeconds?: number; maxPayload?: number } = {},
): Promise<TestNatsCluster> {
  const size = options.size ?? 3;
  const ports = await Promise.all(Array.from({ length: size * 2 }, () => findFreePort()));
  const routes = Array.from({ length: size }, (_, i) => `nats://127.0.0.1:${ports[size + i]}`);
  const name = `restbus-test-${ports[0]}`;
  const nodes = await Promise.all(
    Array.from({ length: size }, (_, i) =>
      startNatsServer({
        name: `n${i + 1}`,
        maxPayload: options.maxPayload,
        cluster: {
          name,
          clientPort: ports[i],
          routePort: ports[size + i],
          routes,
          lameDuckSeconds: options.lameDuckSeconds,
        },
      }),
    ),
  );
  await Promise.all(nodes.map((node) => waitForJetStream(node.url, node.output)));
  const byName = new Map(nodes.map((node, i) => [`n${i + 1}`, node]));
  return {
    nodes,
    urls: nodes.map((node) => node.url).join(','),
    async leaderOf(stream) {
      // During an election no node names a leader: ask again until one does (or 20 s pass).
      const deadline = Date.now() + 20_000;
      for (;;) {
        for (const node of nodes) {
          if (node.pid === undefined) continue;
          let nc: NatsConnection | undefined;
          try {
            nc = await connect({ servers: node.url, timeout: 1000 });
            const info = await (await nc.jetstreamManager({ timeout: 2000 })).streams.info(stream);
            const leader = byName.get(info.cluster?.leader ?? '');
            if (leader?.pid !== undefined) return leader;
          } catch {
            // that node is down or not yet current: ask the next
          } finally {
            await nc?.close();
          }
        }
        if (Date.now() > deadline) throw new Error(`no node knows the leader of ${stream}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async dispose() {
      await Promise.all(nodes.map((node) => node.dispose()));
    },
  };
}
