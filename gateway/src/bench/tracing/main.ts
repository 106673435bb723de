// `npm run bench:tracing`: what tracing costs the gateway. Two comparisons, each side by side in alternating slices at
// 64 connections through the same NATS server and responder, in rounds of new processes:
//   off: this build with tracing off against a build without tracing (BENCH_BASELINE_REF, built once in a worktree);
//   on:  this build tracing every call (OTLP/HTTP protobuf to a receiver process that counts) against it off.
// The bounds: off costs at most 1 %, on at most 15 %.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import { median, startHelloResponder, startNatsServer } from '@restbus/infra/testing';
import {
  combineSlices,
  cpuPerRequest,
  pinBenchToFirstCore,
  runSideBySide,
  startBenchGateway,
  type SideBySideRound,
} from '../side-by-side';

const CONNECTIONS = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
/** The last commit before tracing: the build "without it". */
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? 'e5c3e5f';
const REPO = resolve(__dirname, '../../../..');
const GOALS = { off: 0.99, on: 0.85 };
/** BENCH_ONLY=off or BENCH_ONLY=on runs that comparison alone (half the time, while working on one of them). */
const ONLY = process.env.BENCH_ONLY;

/** A checkout of the baseline, installed and built once (kept in the system's temp folder for the next run). */
function buildBaseline(): string {
  const dir = join(tmpdir(), `restbus-bench-baseline-${BASELINE_REF}`);
  const main = join(dir, 'gateway/dist/main.js');
  if (existsSync(main)) return main;
  process.stderr.write(`building the baseline ${BASELINE_REF} in ${dir} (once)\n`);
  execFileSync('git', ['-C', REPO, 'worktree', 'add', '--force', '--detach', dir, BASELINE_REF], { stdio: 'inherit' });
  execFileSync('npm', ['ci', '--no-audit', '--no-fund'], { cwd: dir, stdio: 'inherit' });
  execFileSync('npx', ['tsc', '-b', 'gateway'], { cwd: dir, stdio: 'inherit' });
  return main;
}

/** A receiver in a process of its own (its work is the collector's, not the gateway's), counting what it gets. */
async function startReceiver(): Promise<{ url: string; child: ChildProcess }> {
  const script =
    "require('@restbus/infra/testing').OtlpReceiver.start({ keepSpans: false })" +
    '.then((r) => { console.log(r.url); setInterval(() => undefined, 60_000); })';
  const child = spawn(process.execPath, ['-e', script], { cwd: __dirname, stdio: ['ignore', 'pipe', 'inherit'] });
  const url = String((await createInterface({ input: child.stdout! })[Symbol.asyncIterator]().next()).value);
  return { url, child };
}

async function compare(
  label: string,
  start: (kind: 'tried' | 'base') => Promise<import('../side-by-side').BenchGateway>,
): Promise<SideBySideRound[]> {
  const rounds: SideBySideRound[] = [];
  for (let round = 0; round < ROUNDS; round++) {
    process.stderr.write(`${label}: round ${round + 1}/${ROUNDS}\n`);
    rounds.push(
      await runSideBySide({
        start,
        triedFirst: round % 2 === 0,
        connections: CONNECTIONS,
        slices: SLICES,
        sliceSeconds: SLICE_SECONDS,
      }),
    );
  }
  return rounds;
}

function report(
  label: string,
  names: { tried: string; base: string },
  rounds: SideBySideRound[],
  goal: number,
): boolean {
  const ratio = median(rounds.flatMap((round) => round.pairs));
  for (const kind of ['base', 'tried'] as const) {
    const r = combineSlices(
      rounds.flatMap((round) => round.slices[kind]),
      SLICE_SECONDS,
    );
    console.log(
      `${names[kind].padEnd(48)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms`,
    );
  }
  console.log(
    `  gateway CPU per request: ${cpuPerRequest(rounds, 'base').toFixed(0)} us ${names.base}, ${cpuPerRequest(rounds, 'tried').toFixed(0)} us ${names.tried}`,
  );
  const byRound = rounds.map((round) => round.ratio.toFixed(3)).join(', ');
  const met = ratio >= goal;
  console.log(
    `  ${label}: median of ${rounds.length * SLICES} pairs ${ratio.toFixed(3)} (goal >= ${goal}): ${met ? 'PASS' : 'FAIL'} (rounds ${byRound})`,
  );
  return met;
}

async function main(): Promise<void> {
  pinBenchToFirstCore();
  const runOff = ONLY !== 'on';
  const runOn = ONLY !== 'off';
  const baseline = runOff ? buildBaseline() : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-tracing-'));
  const nats = await startNatsServer();
  const receiver = await startReceiver();
  try {
    const responder = await startHelloResponder(nats.url, 'easer.get_/pets');
    const api = join(dir, 'api.json');
    const get = { operationId: 'listPets', responses: { '200': { description: 'pets' } } };
    await writeFile(
      api,
      JSON.stringify({ openapi: '3.0.3', info: { title: 'pets', version: '1' }, paths: { '/pets': { get } } }),
    );
    const args = ['-r', api, '-u', '-n', nats.url];
    const off: NodeJS.ProcessEnv = { ...process.env, OTEL_EXPORTER_OTLP_ENDPOINT: '', OTEL_TRACES_EXPORTER: '' };
    const on: NodeJS.ProcessEnv = {
      ...off,
      OTEL_EXPORTER_OTLP_ENDPOINT: receiver.url,
      OTEL_EXPORTER_OTLP_PROTOCOL: process.env.OTEL_EXPORTER_OTLP_PROTOCOL ?? 'http/protobuf',
      OTEL_TRACES_SAMPLER: 'always_on',
    };
    const offRounds = baseline
      ? await compare('off against the build without tracing', (kind) =>
          kind === 'tried'
            ? startBenchGateway(args, '/pets', 'off', { env: off })
            : startBenchGateway(args, '/pets', 'baseline', { env: off, main: baseline }),
        )
      : [];
    const onRounds = runOn
      ? await compare('on (every call sampled) against off', (kind) =>
          startBenchGateway(args, '/pets', kind === 'tried' ? 'on' : 'off', { env: kind === 'tried' ? on : off }),
        )
      : [];
    await responder.close();
    console.log(
      `bench:tracing: ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SLICES} alternating pairs of slices of ${SLICE_SECONDS} s; baseline ${BASELINE_REF}`,
    );
    const offMet =
      !runOff ||
      report(
        'off / without',
        { tried: 'GET /pets, tracing off', base: `GET /pets, ${BASELINE_REF}` },
        offRounds,
        GOALS.off,
      );
    const onMet =
      !runOn ||
      report(
        'on / off',
        { tried: `GET /pets, tracing on (100 %, ${on.OTEL_EXPORTER_OTLP_PROTOCOL})`, base: 'GET /pets, tracing off' },
        onRounds,
        GOALS.on,
      );
    if (!offMet || !onMet) process.exitCode = 1;
  } finally {
    receiver.child.kill();
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
