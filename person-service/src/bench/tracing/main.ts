// `npm run bench:tracing`, its second part: what tracing costs a call's whole path, the one its trace shows: the
// gateway, NATS, person-service and its JetStream store. Two stacks, each on a NATS server of its own (their services
// must not answer each other's calls): one traced (every call sampled, OTLP/HTTP to a receiver process), one not.
// `GET /persons/p7` on each, side by side in alternating slices at 64 connections, in rounds of new gateways (the
// services and their stores stay). The bound: on costs at most 15 %. BENCH_ONLY=path runs this part alone.
import { resolve } from 'node:path';
import { pingService } from '@restbus/infra';
import {
  freePort,
  killChildren,
  killChildrenOnExit,
  reportRounds,
  runRounds,
  startChild,
  startNatsServer,
  startOtlpReceiverProcess,
  storePersons,
  tracingEnvironments,
  waitUntil,
  type BenchServer,
  type TestNatsServer,
} from '@restbus/infra/testing';

const ROOT = resolve(__dirname, '../../../..');
const CONNECTIONS = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 4);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
const GOAL = 0.85;
const PERSONS = 10;
const API = 'person-service/person-api.yml';

type Kind = 'tried' | 'base';

/** One stack's person-service, on its own NATS server, traced or not. */
async function startService(kind: Kind, nats: TestNatsServer, env: NodeJS.ProcessEnv): Promise<void> {
  const service = startChild(
    `person-service (${kind})`,
    process.execPath,
    ['person-service/dist/main.js', '-n', nats.url, '--store', 'jetstream', '--log-format', 'json'],
    ROOT,
    env,
  );
  await waitUntil(service, async () => (await pingService(nats.url, 'person-service', 500)) !== '');
}

/** A gateway in front of a stack's service, traced as its service is, with the persons stored anew. */
async function startGateway(kind: Kind, nats: TestNatsServer, env: NodeJS.ProcessEnv): Promise<BenchServer> {
  const port = await freePort();
  const args = ['gateway/dist/main.js', '-r', API, '-u', '-n', nats.url, '-p', String(port), '--log-format', 'json'];
  const gateway = startChild(`gateway (${kind})`, process.execPath, args, ROOT, env);
  const base = `http://127.0.0.1:${port}`;
  await waitUntil(gateway, async () => (await fetch(`${base}/-/ready`)).ok);
  await storePersons(base, PERSONS);
  return { url: `${base}/persons/p7`, child: gateway.process };
}

async function main(): Promise<void> {
  const only = process.env.BENCH_ONLY;
  if (only !== undefined && only !== 'path') return;
  const receiver = await startOtlpReceiverProcess();
  const nats = { tried: await startNatsServer(), base: await startNatsServer() };
  killChildrenOnExit(() => receiver.child.kill());
  try {
    const { off, on } = tracingEnvironments(receiver.url);
    const envOf = (kind: Kind): NodeJS.ProcessEnv => (kind === 'tried' ? on : off);
    for (const kind of ['tried', 'base'] as const) await startService(kind, nats[kind], envOf(kind));
    const rounds = await runRounds('the whole path, on against off', ROUNDS, {
      connections: CONNECTIONS,
      slices: SLICES,
      sliceSeconds: SLICE_SECONDS,
      start: (kind) => startGateway(kind, nats[kind], envOf(kind)),
    });
    console.log(
      `bench:tracing, the whole path (gateway, NATS, person-service, JetStream): ${CONNECTIONS} connections, ${ROUNDS} rounds of ${SLICES} alternating pairs of slices of ${SLICE_SECONDS} s`,
    );
    const met = reportRounds(
      'on / off',
      {
        tried: `GET /persons/p7, traced (100 %, ${on.OTEL_EXPORTER_OTLP_PROTOCOL})`,
        base: 'GET /persons/p7, not traced',
      },
      rounds,
      GOAL,
      SLICE_SECONDS,
    );
    if (!met) process.exitCode = 1;
  } finally {
    killChildren();
    receiver.child.kill();
    await Promise.all([nats.tried.dispose(), nats.base.dispose()]);
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
