// `npm run bench:services`: gateway + person-service (JetStream store) against the framework-free forwarder
// (node:http + nats.js request to a trivial responder, as in bench:gateway) and the raw NATS round trip, all
// measured in the same run on one nats-server, so that the ratios hold on whatever machine runs it.
import type { ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { pingService } from '@restbus/infra';
import { runWrk, startNatsServer, storePersons, writePutScript, type LoadResult } from '@restbus/infra/testing';
import { findFreePort, forkTarget, startProgram, stopProcess, waitUntil } from './bench-processes';
import { createBenchResults, type BenchResults } from './bench-results';
import { formatBenchReport } from './format-bench-report';
import {
  REPLY_MODES,
  createReplyCheckResults,
  measureReplyChecks,
  writeTwoPagesScript,
  type ReplyCheckResults,
  type ReplyMode,
} from './measure-reply-checks';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = [64, 1];
const PERSONS = 100;
// `memory` runs person-service without JetStream: what the read path costs without the store's round trips.
const STORE = process.env.BENCH_STORE ?? 'jetstream';
// `confirmed` runs person-service with --reads confirmed: every read asks the stream (the default, `announced`,
// waits for the writes the replicas announce).
const READS = process.env.BENCH_READS ?? 'announced';
// Node's own flags for person-service (`--min-semi-space-size=4 --max-semi-space-size=4`, say): what
// a young generation of a given size costs in throughput, against the same forwarder.
const SERVICE_NODE_ARGS = (process.env.BENCH_SERVICE_NODE_ARGS ?? '').split(' ').filter(Boolean);
/** The reply checks' gateways run side by side, measured in alternating slices of this many seconds. */
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = 2;
// The subject the forwarder and the raw loop call (target-main.js): under the gateway's prefix, beside /persons.
const HELLO_SUBJECT = 'easer.get_/hello';

const FORWARDER = 'framework-free forwarder (hello)';
const EMPTY = 'GET /persons (0 persons)';
const LIST = `GET /persons (${PERSONS} persons)`;
const PUT = 'PUT /persons/{personId}';
const RAW = 'raw NATS request/reply (hello)';

interface Stack {
  forwarder: string;
  gateway: string;
  /** The same gateway with --validateReplies off (the one above), report and enforce. */
  checking: Record<ReplyMode, string>;
  stop(): Promise<void>;
}

/** The hello responder and the forwarder in front of it; person-service and the gateway in front of that. */
async function startStack(natsUrl: string): Promise<Stack> {
  const children: ChildProcess[] = [];
  const stop = async (): Promise<void> => void (await Promise.all(children.map(stopProcess)));
  try {
    const responder = await forkTarget(['responder', natsUrl, HELLO_SUBJECT]);
    children.push(responder.process);
    const forwarder = await forkTarget(['plain', natsUrl]);
    children.push(forwarder.process);
    const api = 'person-service/person-api.yml';
    children.push(
      startProgram([
        ...SERVICE_NODE_ARGS,
        'person-service/dist/main.js',
        '-n',
        natsUrl,
        '--store',
        STORE,
        '--reads',
        READS,
        '-l',
        'warn',
      ]),
    );
    const checking = {} as Record<ReplyMode, string>;
    for (const mode of REPLY_MODES) {
      const port = await findFreePort();
      checking[mode] = `http://127.0.0.1:${port}`;
      const args = ['-r', api, '-u', '-n', natsUrl, '-p', `${port}`, '-l', 'warn', '--validateReplies', mode];
      children.push(startProgram(['gateway/dist/main.js', ...args]));
    }
    await waitUntil(async () => (await pingService(natsUrl, 'person-service', 500)) !== '', 'person-service');
    for (const url of Object.values(checking)) {
      await waitUntil(async () => (await fetch(`${url}/-/ready`)).ok, 'the gateway');
    }
    return { forwarder: `http://127.0.0.1:${forwarder.port}`, gateway: checking.off, checking, stop };
  } catch (err) {
    await stop();
    throw err;
  }
}

/** The raw NATS round trip to the hello responder, from its own process as in bench:gateway. */
async function measureRawNats(natsUrl: string, connections: number): Promise<LoadResult> {
  const raw = await forkTarget(['raw', natsUrl, String(connections), String(SECONDS)]);
  if (!raw.result) throw new Error('the raw NATS loop reported no result');
  return raw.result;
}

/** One round: the forwarder and the empty list, then (with the persons stored) the full list, PUT and raw NATS. */
async function measureRound(
  stack: Stack,
  natsUrl: string,
  scripts: { put: string; twoPages: string },
  results: BenchResults,
  replyChecks: ReplyCheckResults,
): Promise<void> {
  await storePersons(stack.gateway, 0);
  for (const connections of CONNECTIONS) {
    results.record(FORWARDER, connections, await runWrk(`${stack.forwarder}/hello`, connections, SECONDS));
    results.record(EMPTY, connections, await runWrk(`${stack.gateway}/persons`, connections, SECONDS));
  }
  await storePersons(stack.gateway, PERSONS);
  for (const connections of CONNECTIONS) {
    results.record(LIST, connections, await runWrk(`${stack.gateway}/persons`, connections, SECONDS));
    results.record(PUT, connections, await runWrk(`${stack.gateway}/persons/p7`, connections, SECONDS, scripts.put));
    results.record(RAW, connections, await measureRawNats(natsUrl, connections));
  }
  // After the PUTs: the list is back to PERSONS persons, each replaced at most by one of the same shape.
  await measureReplyChecks({
    gateways: stack.checking,
    twoPagesScript: scripts.twoPages,
    connections: CONNECTIONS,
    slices: SLICES,
    sliceSeconds: SLICE_SECONDS,
    results: replyChecks,
  });
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-services-'));
  const nats = await startNatsServer();
  let stack: Stack | undefined;
  try {
    stack = await startStack(nats.url);
    const scripts = { put: join(dir, 'put.lua'), twoPages: join(dir, 'two-pages.lua') };
    await writePutScript(scripts.put, PERSONS);
    await writeTwoPagesScript(scripts.twoPages);
    // Warm-up: JIT, connections, the store's copy.
    await runWrk(`${stack.forwarder}/hello`, 16, 1);
    await runWrk(`${stack.gateway}/persons`, 16, 1);
    const results = createBenchResults(FORWARDER);
    const replyChecks = createReplyCheckResults();
    for (const url of Object.values(stack.checking)) await runWrk(`${url}/persons`, 16, 1);
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`round ${round}/${ROUNDS}\n`);
      await measureRound(stack, nats.url, scripts, results, replyChecks);
    }
    const report = formatBenchReport({
      results,
      reference: FORWARDER,
      scenarios: [FORWARDER, EMPTY, LIST, PUT, RAW],
      reads: [EMPTY, LIST],
      connections: CONNECTIONS,
      rounds: ROUNDS,
      seconds: SECONDS,
      load: { before: loadBefore, after: loadavg()[0], cores: availableParallelism() },
    });
    const checks = [
      `Reply checks (--validateReplies), GET /persons through person-service, the three gateways in ${SLICES} ` +
        `alternating slices of ${SLICE_SECONDS} s per round; ratios against the same gateway with checks off.`,
      '',
      ...replyChecks.format(CONNECTIONS),
      '',
    ].join('\n');
    process.stdout.write(`person-service store: ${STORE}, reads ${READS}\n${report}\n${checks}`);
  } finally {
    await stack?.stop();
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
