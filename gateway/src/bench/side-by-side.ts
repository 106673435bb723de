import { execFileSync, spawn, type ChildProcess, type SpawnOptions } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { median, runWrk, type LoadResult } from '@restbus/infra/testing';

const MAIN = resolve(__dirname, '../main.js');

/** A gateway a bench started, and the URL it measures. */
export interface BenchGateway {
  url: string;
  child: ChildProcess;
}

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

/** Stops the gateways with SIGINT (a clean stop, which writes the profiles asked for). */
export async function stopBenchGateways(gateways: readonly BenchGateway[]): Promise<void> {
  await Promise.all(
    gateways.map(({ child }) => new Promise((done) => (child.once('exit', done), child.kill('SIGINT')))),
  );
}

/** CPU seconds of a process so far (user and system), from /proc. */
function cpuOf(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/** One round of two gateways measured side by side: the tried one (`tried`) and the reference (`base`). */
export interface SideBySideRound {
  order: string;
  slices: { tried: LoadResult[]; base: LoadResult[] };
  /** CPU seconds of each gateway during its own slices. */
  cpu: { tried: number; base: number };
  /** Each slice's ratio tried / base, of the two slices run back to back. */
  pairs: number[];
  ratio: number;
}

export interface SideBySideOptions {
  /** Starts the gateway of a kind; each round starts both anew. */
  start: (kind: 'tried' | 'base') => Promise<BenchGateway>;
  triedFirst: boolean;
  /** Run once both are up, before the warm-up: throws when a gateway does not answer as the bench assumes. */
  check?: (tried: BenchGateway, base: BenchGateway) => Promise<void>;
  connections: number;
  slices: number;
  sliceSeconds: number;
  /** The wrk script each request is made by. */
  script?: string;
}

/**
 * One round: both gateways started (the tried one first or not), warmed up, then measured in alternating slices
 * (ABBA), each one's CPU counted over its own slices only (an idle gateway's housekeeping is not a request's cost).
 * The round's ratio is the median of its back-to-back pairs: a machine whose speed drifts moves both of a pair alike.
 */
export async function runSideBySide(options: SideBySideOptions): Promise<SideBySideRound> {
  const kinds: Array<'tried' | 'base'> = options.triedFirst ? ['tried', 'base'] : ['base', 'tried'];
  const running: Array<{ kind: 'tried' | 'base'; gateway: BenchGateway }> = [];
  try {
    for (const kind of kinds) running.push({ kind, gateway: await options.start(kind) });
    const gatewayOf = (kind: 'tried' | 'base'): BenchGateway => running.find((one) => one.kind === kind)!.gateway;
    await options.check?.(gatewayOf('tried'), gatewayOf('base'));
    for (const { gateway } of running) await runWrk(gateway.url, options.connections, 3, options.script);
    const slices = { tried: [] as LoadResult[], base: [] as LoadResult[] };
    const cpu = { tried: 0, base: 0 };
    for (let slice = 0; slice < options.slices; slice++) {
      for (const { kind, gateway } of slice % 2 ? [...running].reverse() : running) {
        const before = cpuOf(gateway.child);
        slices[kind].push(await runWrk(gateway.url, options.connections, options.sliceSeconds, options.script));
        cpu[kind] += cpuOf(gateway.child) - before;
      }
    }
    const pairs = slices.tried.map((tried, i) => tried.requests / slices.base[i].requests);
    const order = options.triedFirst ? 'first' : 'second';
    return { order, slices, cpu, pairs, ratio: median(pairs) };
  } finally {
    await stopBenchGateways(running.map(({ gateway }) => gateway));
  }
}

/** Throughput and latency of a kind over all its slices. */
export function combineSlices(slices: LoadResult[], sliceSeconds: number): { rps: number; p50: number; p99: number } {
  const requests = slices.reduce((sum, slice) => sum + slice.requests, 0);
  return {
    rps: requests / (sliceSeconds * slices.length),
    p50: median(slices.map((slice) => slice.p50)),
    p99: median(slices.map((slice) => slice.p99)),
  };
}

/** CPU microseconds per request of a kind, over its own slices of every round. */
export function cpuPerRequest(rounds: readonly SideBySideRound[], kind: 'tried' | 'base'): number {
  const requests = rounds.flatMap((round) => round.slices[kind]).reduce((sum, slice) => sum + slice.requests, 0);
  return (rounds.reduce((sum, round) => sum + round.cpu[kind], 0) / requests) * 1e6;
}
