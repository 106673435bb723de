import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { findNatsServer } from '../../testing/nats-server';

export interface ConfiguredNatsServer {
  /** `nats://127.0.0.1:<port>` */
  readonly url: string;
  readonly port: number;
  dispose(): Promise<void>;
}

/**
 * A real nats-server with configuration of a test's own (an `authorization`, `tls` or `operator` block) on a port
 * it picks itself. startNatsServer() writes a fixed configuration; these servers need no JetStream.
 */
export async function startConfiguredNatsServer(config: string): Promise<ConfiguredNatsServer> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-nats-secured-'));
  const file = join(dir, 'nats-server.conf');
  await writeFile(file, `listen: "127.0.0.1:-1"\nports_file_dir: "${dir}"\n${config}\n`);
  const child: ChildProcess = spawn(findNatsServer(), ['-c', file], { stdio: ['ignore', 'ignore', 'pipe'] });
  let output = '';
  child.once(
    'error',
    (err) => (output += `${err.message}: is nats-server installed (infra/scripts/prepare-docker.sh)?`),
  );
  child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
  const dispose = async (): Promise<void> => {
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    }
    await rm(dir, { recursive: true, force: true });
  };
  try {
    const port = await readPort(join(dir, `nats-server_${child.pid}.ports`), child, () => output);
    return { url: `nats://127.0.0.1:${port}`, port, dispose };
  } catch (err) {
    await dispose();
    throw err;
  }
}

async function readPort(file: string, child: ChildProcess, output: () => string): Promise<number> {
  for (let attempt = 0; attempt < 200; attempt++) {
    if (child.exitCode !== null || child.pid === undefined)
      throw new Error(`nats-server exited with ${child.exitCode}: ${output().slice(-2000)}`);
    const text = await readFile(file, 'utf8').catch(() => undefined);
    // A TLS server reports tls://…; the port is what counts.
    if (text) return Number(new URL((JSON.parse(text) as { nats: string[] }).nats[0]).port);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
  throw new Error(`nats-server did not report its port within 5 s: ${output().slice(-2000)}`);
}
