import { connect, type NatsConnection } from 'nats';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { createServer, type AddressInfo } from 'node:net';
import { join } from 'node:path';
import { startFaultProxy, type FaultMode, type FaultProxy } from './fault-proxy';

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
  /** The route address this member gossips to its peers (`cluster.advertise`), when not its own. */
  advertise?: string;
}

const NOT_FOUND =
  "nats-server could not be started: the integration tests need a real NATS server, the images' version " +
  '(run infra/scripts/prepare-docker.sh as root, or name one in RESTBUS_NATS_SERVER).';

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

/**
 * The nats-server the tests run: the images' version (`NATS_IMAGE`, nats 2.15), where `prepare-docker.sh` unpacks
 * Debian's. Not bookworm's 2.9.10 on the PATH (it deadlocks a node whose disk fills and never pings a busy route,
 * nats-server#4014), nor 2.10 (a restarted node's replica may never catch up, #5205). RESTBUS_NATS_SERVER names
 * another binary; jest's global setup checks its version.
 */
export function findNatsServer(): string {
  const binary = process.env.RESTBUS_NATS_SERVER ?? '/opt/restbus/nats-server/nats-server';
  if (!existsSync(binary)) {
    throw new Error(
      `${binary} is missing: the integration tests run real NATS servers, the images' version; ` +
        "sudo bash infra/scripts/prepare-docker.sh unpacks Debian's there, or set RESTBUS_NATS_SERVER",
    );
  }
  return binary;
}

function spawnServer(
  config: string,
  binary = findNatsServer(),
): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(binary, ['-c', config], { stdio: ['ignore', 'pipe', 'pipe'] });
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
  // A deadline on a timer, not a clock read (testing helpers hold no clock).
  const deadline = startDeadline(15_000);
  for (;;) {
    let nc: NatsConnection | undefined;
    try {
      nc = await connect({ servers: url, timeout: 1000 });
      await nc.jetstreamManager({ timeout: 1000 });
      return;
    } catch (err) {
      if (deadline.passed()) throw new Error(`JetStream did not become ready: ${String(err)}\n${output()}`);
      await new Promise((resolve) => setTimeout(resolve, 50));
    } finally {
      await nc?.close();
    }
  }
}

/** A deadline `ms` from now, kept by a timer (unref'd: it holds no process open), not by reading a clock. */
function startDeadline(ms: number): { passed(): boolean } {
  let passed = false;
  setTimeout(() => (passed = true), ms).unref();
  return { passed: () => passed };
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
    /** The directory JetStream stores in (a small tmpfs, say); a fresh one in the server's directory otherwise. */
    storeDir?: string;
    /** False: a plain NATS server, without JetStream (true by default). */
    jetstream?: boolean;
    /** The nats-server binary: findNatsServer()'s by default. */
    binary?: string;
  } = {},
): Promise<TestNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-nats-'));
  let port = options.cluster?.clientPort ?? -1;
  const writeConfig = async (): Promise<string> => {
    const config = join(dir, 'nats-server.conf');
    const store = options.storeDir ?? join(dir, 'jetstream');
    const { cluster } = options;
    // One route per pair of nodes, as the cluster stack's config has it (infra/nats/nats-cluster.conf says why).
    await writeFile(
      config,
      `listen: "127.0.0.1:${port}"\nports_file_dir: "${dir}"\n` +
        (options.jetstream === false ? '' : `jetstream { store_dir: "${store}" }\n`) +
        (options.name ? `server_name: "${options.name}"\n` : '') +
        (options.maxPayload ? `max_payload: ${options.maxPayload}\n` : '') +
        (cluster
          ? `cluster { name: "${cluster.name}", listen: "127.0.0.1:${cluster.routePort}", routes: [${cluster.routes
              .map((route) => `"${route}"`)
              .join(
                ', ',
              )}]${cluster.advertise ? `, advertise: "${cluster.advertise}"` : ''}, pool_size: -1 }\nlame_duck_duration: "${cluster.lameDuckSeconds ?? 30}s"\nlame_duck_grace_period: "1s"\n`
          : '') +
        (options.extraConfig ? `${options.extraConfig}\n` : ''),
    );
    return config;
  };
  let child: ChildProcess | undefined;
  let output = (): string => '';
  const start = async ({ waitForJetStream: wait = true } = {}): Promise<void> => {
    const spawned = await spawnServer(await writeConfig(), options.binary);
    child = spawned.child;
    output = spawned.output;
    port = await waitForPortsFile(dir, spawned.child, spawned.output);
    if (wait && options.jetstream !== false) await waitForJetStream(`nats://127.0.0.1:${port}`, spawned.output);
  };
  try {
    await (options.cluster ? start({ waitForJetStream: false }) : start());
  } catch (err) {
    await stopChild(child, 'SIGKILL');
    await rm(dir, { recursive: true, force: true });
    throw err;
  }
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

/** The proxies a cluster started with `faults` talks through, and what a test does with them. */
export interface ClusterFaults {
  /** The proxy `from` dials `to`'s route port through (one per ordered pair of nodes). */
  route(from: TestNatsServer, to: TestNatsServer): FaultProxy;
  /** The proxy in front of a node's client port (the address in `urls` and in the node's gossip to clients). */
  client(node: TestNatsServer): FaultProxy;
  /** Sets both directions of every route between `node` and its peers: `blackhole` cuts it off from them. */
  setRoutes(node: TestNatsServer, mode: FaultMode): void;
  /** Every proxy back to `pass`. */
  heal(): void;
}

export interface TestNatsCluster {
  readonly nodes: readonly TestNatsServer[];
  /** Every node's URL, comma-separated: what `-n` takes (the client proxies' with `faults`). */
  readonly urls: string;
  /** With `faults`: the proxies between the nodes, and in front of their client ports. */
  readonly faults: ClusterFaults | undefined;
  /** The live node that leads a stream, once one does (asked of every live node until one names it). */
  leaderOf(stream: string): Promise<TestNatsServer>;
  dispose(): Promise<void>;
}

export interface NatsClusterOptions {
  size?: number;
  lameDuckSeconds?: number;
  maxPayload?: number;
  /**
   * Puts a fault proxy on every route (one per ordered pair of nodes, so that a node can be cut off from its peers
   * alone) and in front of every client port; the nodes gossip the proxies' addresses, so a client that learns the
   * others from its server reaches them through their proxies too. See ClusterFaults.
   */
  faults?: boolean;
  /**
   * How often a node pings a quiet route or client (`ping_interval`, e.g. "1s") and how many unanswered pings it
   * takes for dead (`ping_max`): a route cut off without a TCP error is noticed only then. nats-server's defaults
   * (2 min × 2) when absent.
   */
  pingInterval?: string;
  pingMax?: number;
  /** A JetStream store directory per node index (a small tmpfs for a disk-full test, say); undefined: the default. */
  storeDirs?: (string | undefined)[];
  /**
   * False: plain NATS, no JetStream. Its raft groups send on the routes all the time, and nats-server 2.9.10 does
   * not ping a route it sends on (nats-server#4014): a test of what a node does once it finds a route dead needs
   * quiet routes.
   */
  jetstream?: boolean;
  /** The nats-server binary of every node: findNatsServer()'s by default. */
  binary?: string;
  /** Where the nodes' ports come from: a port found free (released at once) by default. For the harness's tests. */
  findPort?: () => Promise<number>;
}

/**
 * Starts three (or `size`) real nats-servers with routes to each other and JetStream clustered, and resolves once
 * JetStream answers on every node. Ports are chosen free and kept, so a node that is stopped starts again where
 * it was. Lame duck mode lasts `lameDuckSeconds` (30 s by default, as nats-server's own default is 2 min).
 */
export async function startNatsCluster(options: NatsClusterOptions = {}): Promise<TestNatsCluster> {
  // The ports are found free, released, then given to the nodes: in between another process (a parallel suite's
  // outgoing connection, say) may take one, and a node exits with "address already in use". That says nothing of
  // the code under test, so the cluster starts again on other ports.
  for (let attempt = 1; ; attempt++) {
    try {
      return await startNatsClusterOnce(options);
    } catch (err) {
      if (attempt === 3 || !String(err).includes('address already in use')) throw err;
    }
  }
}

async function startNatsClusterOnce(options: NatsClusterOptions): Promise<TestNatsCluster> {
  const size = options.size ?? 3;
  // Client ports, route ports and (with faults) an unused port per node for its advertised route address.
  const ports = await Promise.all(Array.from({ length: size * 3 }, options.findPort ?? findFreePort));
  const name = `restbus-test-${ports[0]}`;
  const routeProxies = new Map<string, FaultProxy>();
  const clientProxies: FaultProxy[] = [];
  if (options.faults) {
    for (let from = 0; from < size; from++) {
      clientProxies.push(await startFaultProxy(ports[from]));
      for (let to = 0; to < size; to++) {
        if (from !== to) routeProxies.set(`${from}>${to}`, await startFaultProxy(ports[size + to]));
      }
    }
  }
  const routesOf = (i: number): string[] =>
    options.faults
      ? Array.from({ length: size }, (_, to) => to)
          .filter((to) => to !== i)
          .map((to) => `nats://127.0.0.1:${routeProxies.get(`${i}>${to}`)?.port}`)
      : Array.from({ length: size }, (_, to) => `nats://127.0.0.1:${ports[size + to]}`);
  const pings =
    (options.pingInterval ? `ping_interval: "${options.pingInterval}"\n` : '') +
    (options.pingMax ? `ping_max: ${options.pingMax}\n` : '');
  const closeProxies = (): Promise<unknown> =>
    Promise.all([...routeProxies.values(), ...clientProxies].map((proxy) => proxy.close()));
  const started = await Promise.allSettled(
    Array.from({ length: size }, (_, i) =>
      startNatsServer({
        name: `n${i + 1}`,
        maxPayload: options.maxPayload,
        storeDir: options.storeDirs?.[i],
        jetstream: options.jetstream,
        binary: options.binary,
        cluster: {
          name,
          clientPort: ports[i],
          routePort: ports[size + i],
          routes: routesOf(i),
          lameDuckSeconds: options.lameDuckSeconds,
          // Every route is dialled explicitly through its proxy: a peer that learns this node's address from the
          // gossip must not route around the proxy. An address nobody listens on makes such an implicit route fail.
          ...(options.faults ? { advertise: `127.0.0.1:${ports[2 * size + i]}` } : {}),
        },
        extraConfig:
          pings + (options.faults ? `client_advertise: "127.0.0.1:${clientProxies[i].port}"\n` : '') || undefined,
      }),
    ),
  );
  const nodes = started.flatMap((result) => (result.status === 'fulfilled' ? [result.value] : []));
  const failed = started.find((result) => result.status === 'rejected');
  try {
    if (failed) throw failed.reason;
    if (options.jetstream !== false) await Promise.all(nodes.map((node) => waitForJetStream(node.url, node.output)));
  } catch (err) {
    await Promise.all(nodes.map((node) => node.dispose()));
    await closeProxies();
    throw err;
  }
  const byName = new Map(nodes.map((node, i) => [`n${i + 1}`, node]));
  const indexOf = (node: TestNatsServer): number => {
    const i = nodes.indexOf(node);
    if (i < 0) throw new Error('not a node of this cluster');
    return i;
  };
  const faults: ClusterFaults | undefined = options.faults
    ? {
        route: (from, to) => routeProxies.get(`${indexOf(from)}>${indexOf(to)}`) as FaultProxy,
        client: (node) => clientProxies[indexOf(node)],
        setRoutes(node, mode) {
          const i = indexOf(node);
          for (const [key, proxy] of routeProxies) {
            if (key.split('>').includes(String(i))) proxy.setMode(mode);
          }
        },
        heal() {
          for (const proxy of [...routeProxies.values(), ...clientProxies]) proxy.setMode({ kind: 'pass' });
        },
      }
    : undefined;
  return {
    nodes,
    urls: options.faults
      ? clientProxies.map((proxy) => `nats://127.0.0.1:${proxy.port}`).join(',')
      : nodes.map((node) => node.url).join(','),
    faults,
    async leaderOf(stream) {
      // During an election no node names a leader: ask again until one does (or 20 s pass).
      const deadline = startDeadline(20_000);
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
        if (deadline.passed()) throw new Error(`no node knows the leader of ${stream}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
    },
    async dispose() {
      await Promise.all(nodes.map((node) => node.dispose()));
      await closeProxies();
    },
  };
}
