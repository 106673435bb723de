import type { ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { median, type LoadResult } from './load-result';
import { runWrk } from './run-wrk';

/** A server a bench started (a gateway, say), and the URL it measures. */
export interface BenchServer {
  url: string;
  child: ChildProcess;
}

/** Stops the servers with SIGINT (a clean stop, which writes the profiles asked for). */
export async function stopBenchServers(servers: readonly BenchServer[]): Promise<void> {
  await Promise.all(
    servers.map(({ child }) => new Promise((done) => (child.once('exit', done), child.kill('SIGINT')))),
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
  start: (kind: 'tried' | 'base') => Promise<BenchServer>;
  triedFirst: boolean;
  /** Run once both are up, before the warm-up: throws when a gateway does not answer as the bench assumes. */
  check?: (tried: BenchServer, base: BenchServer) => Promise<void>;
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
  const running: Array<{ kind: 'tried' | 'base'; gateway: BenchServer }> = [];
  try {
    for (const kind of kinds) running.push({ kind, gateway: await options.start(kind) });
    const gatewayOf = (kind: 'tried' | 'base'): BenchServer => running.find((one) => one.kind === kind)!.gateway;
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
    await stopBenchServers(running.map(({ gateway }) => gateway));
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

/** Rounds of runSideBySide, the tried server started first in every other one; progress on stderr. */
export async function runRounds(
  label: string,
  rounds: number,
  options: Omit<SideBySideOptions, 'triedFirst'>,
): Promise<SideBySideRound[]> {
  const done: SideBySideRound[] = [];
  for (let round = 0; round < rounds; round++) {
    process.stderr.write(`${label}: round ${round + 1}/${rounds}\n`);
    done.push(await runSideBySide({ ...options, triedFirst: round % 2 === 0 }));
  }
  return done;
}

/**
 * Prints two kinds' throughput and latency over every round, their CPU per request, and the median of the pairs
 * against a goal (tried / base at least `goal`); answers whether the goal was met.
 */
export function reportRounds(
  label: string,
  names: { tried: string; base: string },
  rounds: readonly SideBySideRound[],
  goal: number,
  sliceSeconds: number,
): boolean {
  const ratio = median(rounds.flatMap((round) => round.pairs));
  for (const kind of ['base', 'tried'] as const) {
    const r = combineSlices(
      rounds.flatMap((round) => round.slices[kind]),
      sliceSeconds,
    );
    console.log(
      `${names[kind].padEnd(52)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms`,
    );
  }
  console.log(
    `  CPU per request of the measured process: ${cpuPerRequest(rounds, 'base').toFixed(0)} us ${names.base}, ${cpuPerRequest(rounds, 'tried').toFixed(0)} us ${names.tried}`,
  );
  const byRound = rounds.map((round) => round.ratio.toFixed(3)).join(', ');
  const met = ratio >= goal;
  console.log(
    `  ${label}: median of ${rounds.reduce((sum, round) => sum + round.pairs.length, 0)} pairs ${ratio.toFixed(3)} (goal >= ${goal}): ${met ? 'PASS' : 'FAIL'} (rounds ${byRound})`,
  );
  return met;
}
