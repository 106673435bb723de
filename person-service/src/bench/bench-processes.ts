import { fork, spawn, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { resolve } from 'node:path';
import type { LoadResult } from '@restbus/infra/testing';

const ROOT = resolve(__dirname, '../../..');
// The gateway's benchmark targets (hello responder, framework-free forwarder, raw NATS loop), built by tsc -b.
const TARGET_MAIN = resolve(ROOT, 'gateway/dist/bench/target-main.js');

/** What a forked target reports once it is ready: the port it serves, or the figures of a load it ran. */
export interface BenchTarget {
  process: ChildProcess;
  port?: number;
  result?: LoadResult;
}

export function findFreePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

/** Starts one of the repository's programs (`node <args>` from the repository root). */
export function startProgram(args: string[]): ChildProcess {
  return spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

/** Forks gateway/dist/bench/target-main.js `<kind> <natsUrl> ...` and resolves with what it reports. */
export function forkTarget(args: string[]): Promise<BenchTarget> {
  return new Promise((done, fail) => {
    const child = fork(TARGET_MAIN, args, { stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (message: Omit<BenchTarget, 'process'>) => done({ process: child, ...message }));
    child.once('exit', (code) => fail(new Error(`${args[0]} exited with ${code} before it was ready`)));
  });
}

export function stopProcess(child: ChildProcess): Promise<void> {
  return new Promise((done) => {
    if (child.exitCode !== null || child.signalCode !== null) return done();
    child.once('exit', () => done());
    child.kill('SIGKILL');
  });
}

/** Polls `check` (every 50 ms, for at most 10 s) until it answers true. */
export async function waitUntil(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((done) => setTimeout(done, 50));
  }
  throw new Error(`${what} did not come up`);
}
