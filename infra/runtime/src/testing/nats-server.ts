import { connect, Events, type NatsConnection } from 'nats';
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { get } from 'node:http';
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
  /**
   * Puts the server in lame duck mode (SIGUSR2) and resolves once it has exited: stopped as soon as its clients have
   * left (see endOnceClientsLeft), or after it closed those that stayed past its grace period.
   */
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
  /** How long lame duck mode lets clients move before it closes them (nats-server's default 10 s). */
  lameDuckGraceSeconds?: number;
  /** The route address this member gossips to its peers (`cluster.advertise`), when not its own. */
  advertise?: string;
}

// nats-server's own default: how long a server in lame duck mode lets its clients move before it closes them.
const LAME_DUCK_GRACE_SECONDS = 10;

const NOT_FOUND =
  "nats-server could not be started: the integration tests need a real NATS server, the images' version " +
  '(run infra/scripts/prepare-docker.sh as root, or name one in RESTBUS_NATS_SERVER).';

/** The ports a started server reports: its client port, and its monitoring port (for enterLameDuck). */
interface ServerPorts {
  client: number;
  monitoring: number;
}

async function waitForPortsFile(dir: string, child: ChildProcess, output: () => string): Promise<ServerPorts> {
  const file = join(dir, `nats-server_${child.pid}.ports`);
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null) throw new Error(`nats-server exited with ${child.exitCode}: ${output()}`);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    if (text) {
      const ports = JSON.parse(text) as { nats: string[]; monitoring: string[] };
      return { client: Number(new URL(ports.nats[0]).port), monitoring: Number(new URL(ports.monitoring[0]).port) };
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

/**
 * Ends a lame duck mode once the server's clients have left it. nats-server waits out its whole grace period before
 * it closes the clients still there, and exits only after that, even when every client moved at once: the tests give
 * clients nats-server's default 10 s to move (a move a busy machine makes slow is not a lost call), and do not wait
 * for the rest of it. With a `witness` (a client of ours) the notice is known to be out; then the server is stopped
 * (SIGINT, which lame duck mode does not ignore, unlike SIGTERM) once the witness is its only client. Resolves when
 * the signal is sent, or never when the server exits first (closing its clients itself).
 */
async function endOnceClientsLeft(
  child: ChildProcess,
  monitoringPort: number,
  witness?: NatsConnection,
): Promise<void> {
  if (witness) {
    for await (const status of witness.status()) if (status.type === Events.LDM) break;
  }
  const others = witness ? 1 : 0;
  for (;;) {
    const varz = await readVarz(monitoringPort);
    if (child.exitCode !== null || child.signalCode !== null) return new Promise<never>(() => undefined);
    if (varz?.connections !== undefined && varz.connections <= others) break;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  child.kill('SIGINT');
}

/** The server's /varz (undefined when it does not answer): one request on a connection of its own. */
function readVarz(port: number): Promise<{ connections?: number } | undefined> {
  return new Promise((resolve) => {
    const request = get({ host: '127.0.0.1', port, path: '/varz', agent: false, timeout: 2000 }, (response) => {
      let body = '';
      response.setEncoding('utf8');
      response.on('data', (chunk: string) => (body += chunk));
      response.on('end', () => {
        try {
          resolve(JSON.parse(body) as { connections?: number });
        } catch {
          resolve(undefined);
        }
      });
      response.on('error', () => resolve(undefined));
    });
    request.on('timeout', () => request.destroy());
    request.on('error', () => resolve(undefined));
  });
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
      `listen: "127.0.0.1:${port}"\nhttp: "127.0.0.1:-1"\nports_file_dir: "${dir}"\n` +
        (options.jetstream === false ? '' : `jetstream { store_dir: "${store}" }\n`) +
        (options.name ? `server_name: "${options.name}"\n` : '') +
        (options.maxPayload ? `max_payload: ${options.maxPayload}\n` : '') +
        (cluster
          ? `cluster { name: "${cluster.name}", listen: "127.0.0.1:${cluster.routePort}", routes: [${cluster.routes
              .map((route) => `"${route}"`)
              .join(
                ', ',
              )}]${cluster.advertise ? `, advertise: "${cluster.advertise}"` : ''}, pool_size: -1 }\nlame_duck_duration: "${cluster.lameDuckSeconds ?? 30}s"\nlame_duck_grace_period: "${cluster.lameDuckGraceSeconds ?? LAME_DUCK_GRACE_SECONDS}s"\n`
          : '') +
        (options.extraConfig ? `${options.extraConfig}\n` : ''),
    );
    return config;
  };
  let child: ChildProcess | undefined;
  let monitoringPort = 0;
  // Set by signalLameDuck: the lame-duck notice may have gone out already, so enterLameDuck cannot watch for it.
  let lameDuckSignalled = false;
  let output = (): string => '';
  const start = async ({ waitForJetStream: wait = true } = {}): Promise<void> => {
    lameDuckSignalled = false;
    const spawned = await spawnServer(await writeConfig(), options.binary);
    child = spawned.child;
    output = spawned.output;
    const ports = await waitForPortsFile(dir, spawned.child, spawned.output);
    port = ports.client;
    monitoringPort = ports.monitoring;
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
      const running = child;
      const exited = new Promise<void>((resolve) => running.once('exit', () => resolve()));
      // A client of our own hears the notice the clients get, after the server has handed its JetStream leaders on.
      const witness = lameDuckSignalled
        ? undefined
        : await connect({ servers: `nats://127.0.0.1:${port}`, reconnect: false }).catch(() => undefined);
      running.kill('SIGUSR2');
      await Promise.race([exited, endOnceClientsLeft(running, monitoringPort, witness)]);
      await witness?.close();
      await exited;
    },
    signalLameDuck() {
      if (child && child.exitCode === null && child.signalCode === null) {
        lameDuckSignalled = true;
        child.kill('SIGUSR2');
      }
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
  /** How long lame duck mode lets clients move before it closes them: nats-server's default 10 s. */
  lameDuckGraceSeconds?: number;
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
          lameDuckGraceSeconds: options.lameDuckGraceSeconds,
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
