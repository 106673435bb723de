import { connect, type NatsConnection } from 'nats';
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';

export interface TestNatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  /** Stops the server; the store directory survives until `dispose`. */
  stop(): Promise<void>;
  /** Starts the server again on the same port and store (after `stop`). */
  start(): Promise<void>;
  /** Stops the server and removes its files. */
  dispose(): Promise<void>;
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

async function stopChild(child: ChildProcess | undefined): Promise<void> {
  if (!child || child.exitCode !== null || child.signalCode !== null) return;
  const exited = new Promise((resolve) => child.once('exit', resolve));
  child.kill('SIGTERM');
  const timer = setTimeout(() => child.kill('SIGKILL'), 5000);
  await exited;
  clearTimeout(timer);
}

/**
 * Starts a real nats-server (with JetStream, on a port it picks itself) for a test, in a fresh directory.
 * Fails with a clear message when nats-server is not installed: a missing server is never a skipped test.
 */
export async function startNatsServer(options: { maxPayload?: number } = {}): Promise<TestNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-nats-'));
  let port = -1;
  const writeConfig = async (): Promise<string> => {
    const config = join(dir, 'nats-server.conf');
    const store = join(dir, 'jetstream');
    await writeFile(
      config,
      `listen: "127.0.0.1:${port}"\nports_file_dir: "${dir}"\njetstream { store_dir: "${store}" }\n` +
        (options.maxPayload ? `max_payload: ${options.maxPayload}\n` : ''),
    );
    return config;
  };
  let child: ChildProcess | undefined;
  const start = async (): Promise<void> => {
    const spawned = await spawnServer(await writeConfig());
    child = spawned.child;
    port = await waitForPortsFile(dir, spawned.child, spawned.output);
    await waitForJetStream(`nats://127.0.0.1:${port}`, spawned.output);
  };
  await start();
  return {
    get url() {
      return `nats://127.0.0.1:${port}`;
    },
    get port() {
      return port;
    },
    stop: () => stopChild(child),
    start,
    async dispose() {
      await stopChild(child);
      await rm(dir, { recursive: true, force: true });
    },
  };
}
