// `npm run bench:tracing`: what tracing costs the gateway. Two comparisons, each side by side in alternating slices at
// 64 connections through the same NATS server and responder, in rounds of new processes:
//   off: this build with tracing off against a build without tracing (BENCH_BASELINE_REF, built once in a worktree);
//   on:  this build tracing every call (OTLP/HTTP protobuf to a receiver process that counts) against it off.
// The bounds: off costs at most 1 %, on at most 15 %.
import { execFileSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import {
  reportRounds,
  runRounds,
  startHelloResponder,
  startNatsServer,
  startOtlpReceiverProcess,
  tracingEnvironments,
} from '@restbus/infra/testing';
import { pinBenchToFirstCore, startBenchGateway } from '../side-by-side';

const CONNECTIONS = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
/** The last commit before tracing: the build "without it". */
const BASELINE_REF = process.env.BENCH_BASELINE_REF ?? 'e5c3e5f';
const REPO = resolve(__dirname, '../../../..');
const GOALS = { off: 0.99, on: 0.85 };
const SLICING = { connections: CONNECTIONS, slices: SLICES, sliceSeconds: SLICE_SECONDS };
/** BENCH_ONLY=off, on or path runs that comparison alone (path: the whole call's, person-service's part of the bench). */
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

async function main(): Promise<void> {
  const runOff = ONLY === undefined || ONLY === 'off';
  const runOn = ONLY === undefined || ONLY === 'on';
  if (!runOff && !runOn) return;
  pinBenchToFirstCore();
  const baseline = runOff ? buildBaseline() : undefined;
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-tracing-'));
  const nats = await startNatsServer();
  const receiver = await startOtlpReceiverProcess();
  try {
    const responder = await startHelloResponder(nats.url, 'easer.get_/pets');
    const api = join(dir, 'api.json');
    const get = { operationId: 'listPets', responses: { '200': { description: 'pets' } } };
    await writeFile(
      api,
      JSON.stringify({ openapi: '3.0.3', info: { title: 'pets', version: '1' }, paths: { '/pets': { get } } }),
    );
    const args = ['-r', api, '-u', '-n', nats.url];
    const { off, on } = tracingEnvironments(receiver.url);
    const offRounds = baseline
      ? await runRounds('off against the build without tracing', ROUNDS, {
          ...SLICING,
          start: (kind) =>
            kind === 'tried'
              ? startBenchGateway(args, '/pets', 'off', { env: off })
              : startBenchGateway(args, '/pets', 'baseline', { env: off, main: baseline }),
        })
      : [];
    const onRounds = runOn
      ? await runRounds('on (every call sampled) against off', ROUNDS, {
          ...SLICING,
          start: (kind) =>
            startBenchGateway(args, '/pets', kind === 'tried' ? 'on' : 'off', { env: kind === 'tried' ? on : off }),
        })
      : [];
    await responder.close();
    console.log(
      `bench:tracing, the gateway alone (a trivial responder behind it): ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SLICES} alternating pairs of slices of ${SLICE_SECONDS} s; baseline ${BASELINE_REF}`,
    );
    const offMet =
      !runOff ||
      reportRounds(
        'off / without',
        { tried: 'GET /pets, tracing off', base: `GET /pets, ${BASELINE_REF}` },
        offRounds,
        GOALS.off,
        SLICE_SECONDS,
      );
    const onMet =
      !runOn ||
      reportRounds(
        'on / off',
        { tried: `GET /pets, tracing on (100 %, ${on.OTEL_EXPORTER_OTLP_PROTOCOL})`, base: 'GET /pets, tracing off' },
        onRounds,
        GOALS.on,
        SLICE_SECONDS,
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
