import { spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';

export interface Child {
  name: string;
  process: ChildProcess;
  /** The end of what the child wrote, for the error message when it fails. */
  output(): string;
}

const running = new Set<Child>();

/** A port nobody listens on right now: the kernel picks it, we release it, the child takes it. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.once('error', reject);
  });
}

export function startChild(
  name: string,
  command: string,
  args: string[],
  cwd: string,
  env: NodeJS.ProcessEnv = process.env,
): Child {
  const child = spawn(command, args, { cwd, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let output = '';
  // Both streams are drained: a child blocked on a full pipe would measure as a slow server.
  const keep = (chunk: Buffer): void => {
    output = (output + chunk.toString()).slice(-4000);
  };
  child.stdout?.on('data', keep);
  child.stderr?.on('data', keep);
  const entry: Child = { name, process: child, output: () => output.trim() };
  running.add(entry);
  child.once('exit', () => running.delete(entry));
  return entry;
}

/** Polls `check` until it passes; fails at once, with the child's output, when the child dies first. */
export async function waitUntil(child: Child, check: () => Promise<boolean>, seconds = 30): Promise<void> {
  const deadline = Date.now() + seconds * 1000;
  while (Date.now() < deadline) {
    const { exitCode, signalCode } = child.process;
    if (exitCode !== null || signalCode !== null) {
      throw new Error(`${child.name} exited (${exitCode ?? signalCode}) before answering:\n${child.output()}`);
    }
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error(`${child.name} did not answer within ${seconds} s:\n${child.output()}`);
}

export function killChildren(): void {
  for (const child of running) child.process.kill('SIGKILL');
}

/**
 * No server outlives the benchmark, whether it ends normally, throws, or is interrupted; `cleanUp` runs too, since
 * exiting on a signal skips the `finally` blocks. A running wrk is left to finish its few seconds: on Ctrl-C the
 * terminal signals it as well.
 */
export function killChildrenOnExit(cleanUp: () => void): void {
  process.once('exit', () => {
    killChildren();
    cleanUp();
  });
  for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP'] as const) {
    process.once(signal, () => {
      process.stderr.write(`bench: ${signal}, servers stopped\n`);
      process.exit(130);
    });
  }
}
