import { execFileSync, spawn, type SpawnOptions } from 'node:child_process';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import type { BenchServer } from '@restbus/infra/testing';

const MAIN = resolve(__dirname, '../main.js');

/** A gateway a bench started, and the URL it measures. */
export type BenchGateway = BenchServer;

/**
 * Starts `restbus-gateway <args>` on port 0 for a bench; resolves once it listens and its start's lint is done (a
 * gateway still linting in its worker is slower). BENCH_CPU_PROF=<dir> writes its CPU profile to `<dir>/<label>`
 * (see ../shared/notes/profiling.md); BENCH_PIN=1 gives it the second core (pinBenchToFirstCore takes the first).
 */
export function startBenchGateway(
  args: string[],
  path: string,
  label: string,
  /** Another build's main.js (a baseline), and the environment (this process's by default). */
  options: { main?: string; env?: NodeJS.ProcessEnv } = {},
): Promise<BenchGateway> {
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${label}`]
    : [];
  const all = [...profile, options.main ?? MAIN, ...args, '-p', '0', '--log-format', 'json'];
  const spawnOptions: SpawnOptions = { stdio: ['ignore', 'pipe', 'inherit'], env: options.env ?? process.env };
  const child = process.env.BENCH_PIN
    ? spawn('taskset', ['-c', '1', process.execPath, ...all], spawnOptions)
    : spawn(process.execPath, all, spawnOptions);
  // Its log is read to the end (a line a request), so that a full pipe never holds the gateway up.
  const lines = createInterface({ input: child.stdout! });
  let url: string | undefined;
  return new Promise((done, reject) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      if (entry.msg === 'gateway listening') url = `http://127.0.0.1:${entry.port}${path}`;
      if (entry.msg === 'API checked for warnings' && url) done({ url, child });
    });
    child.once('exit', () => reject(new Error(`the gateway (${label}) stopped before it listened`)));
  });
}

/** BENCH_PIN=1: this process and what it starts (wrk, nats-server) on the first core. */
export function pinBenchToFirstCore(): void {
  if (!process.env.BENCH_PIN) return;
  execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
}
