// `npm run bench:ratelimit`: what a rate limit (x-restbus-rate-limit) costs, and how closely three gateways hold one.
// Throughput: the same gateway, API and service, the operation limited or not, side by side in alternating slices at
// 64 connections, each request from one of 100 clients (a header picked at random), the limit never reached, in
// rounds of new processes (each started first in every other one). Overshoot: three gateways on one NATS server, 48
// callers of one client spread over them, three times the limit in calls: what they admitted against the limit.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  median,
  startHelloResponder,
  startNatsServer,
  combineSlices,
  cpuPerRequest,
  runSideBySide,
  stopBenchServers,
  type SideBySideRound,
} from '@restbus/infra/testing';
import { pinBenchToFirstCore, startBenchGateway, type BenchGateway } from '../side-by-side';

const CONNECTIONS = 64;
const CLIENTS = 100;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
/** The bound: a limited operation keeps at least this share of the throughput of the same one unlimited. */
const GOAL = 0.9;
const OVERSHOOT_LIMIT = 1000;

function writeApi(file: string, limit?: object): Promise<void> {
  const get = { ...(limit && { 'x-restbus-rate-limit': limit }), responses: { '200': { description: 'pets' } } };
  const api = { openapi: '3.0.3', info: { title: 'pets', version: '1' }, paths: { '/pets': { get } } };
  return writeFile(file, JSON.stringify(api));
}

/** A wrk script sending each request as one of the clients, picked at random. */
function writeClientScript(file: string): Promise<void> {
  return writeFile(
    file,
    [
      'request = function()',
      `  return wrk.format(nil, nil, { ["X-Client"] = "client-" .. math.random(1, ${CLIENTS}) })`,
      'end',
      '',
    ].join('\n'),
  );
}

/** `callers` loops of one client's calls spread over the gateways, `calls` in all: how many were admitted. */
async function hammer(gateways: readonly BenchGateway[], callers: number, calls: number): Promise<number> {
  let next = 0;
  let admitted = 0;
  await Promise.all(
    Array.from({ length: callers }, async () => {
      while (next < calls) {
        const gateway = gateways[next++ % gateways.length];
        const response = await fetch(gateway.url, { headers: { 'x-client': 'hammer' } });
        await response.arrayBuffer();
        if (response.status === 200) admitted++;
        else if (response.status !== 429) throw new Error(`a call was answered ${response.status}`);
      }
    }),
  );
  return admitted;
}

async function main(): Promise<void> {
  pinBenchToFirstCore();
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-ratelimit-'));
  const nats = await startNatsServer();
  try {
    const responder = await startHelloResponder(nats.url, 'easer.get_/pets');
    const [limited, unlimited, overshoot, script] = [
      'limited.json',
      'unlimited.json',
      'overshoot.json',
      'clients.lua',
    ].map((name) => join(dir, name));
    await writeApi(limited, { limit: 1_000_000_000, window: '1h', by: 'header:x-client' });
    await writeApi(unlimited);
    await writeApi(overshoot, { limit: OVERSHOOT_LIMIT, window: '1h', by: 'header:x-client' });
    await writeClientScript(script);
    const rounds: SideBySideRound[] = [];
    for (let round = 0; round < ROUNDS; round++) {
      rounds.push(
        await runSideBySide({
          start: (kind) =>
            startBenchGateway(['-r', kind === 'tried' ? limited : unlimited, '-u', '-n', nats.url], '/pets', kind),
          triedFirst: round % 2 === 0,
          check: async (tried) => {
            const answer = await fetch(tried.url, { headers: { 'x-client': 'check' } });
            if (answer.status !== 200 || !answer.headers.get('ratelimit'))
              throw new Error(`the limited gateway answered ${answer.status} without RateLimit`);
          },
          connections: CONNECTIONS,
          slices: SLICES,
          sliceSeconds: SLICE_SECONDS,
          script,
        }),
      );
    }
    const gateways: BenchGateway[] = [];
    let admitted: number;
    try {
      for (let i = 0; i < 3; i++)
        gateways.push(await startBenchGateway(['-r', overshoot, '-u', '-n', nats.url], '/pets', `overshoot-${i}`));
      admitted = await hammer(gateways, 48, 3 * OVERSHOOT_LIMIT);
    } finally {
      await stopBenchServers(gateways);
    }
    await responder.close();

    const ratio = median(rounds.flatMap((round) => round.pairs));
    const row = (name: string, r: { rps: number; p50: number; p99: number }) =>
      `${name.padEnd(32)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms`;
    console.log(
      `bench:ratelimit: ${CONNECTIONS} connections, ${CLIENTS} clients, ${ROUNDS} rounds of ${SLICES} alternating pairs of slices of ${SLICE_SECONDS} s`,
    );
    console.log(
      row(
        'GET /pets unlimited',
        combineSlices(
          rounds.flatMap((r) => r.slices.base),
          SLICE_SECONDS,
        ),
      ),
    );
    console.log(
      row(
        'GET /pets rate-limited',
        combineSlices(
          rounds.flatMap((r) => r.slices.tried),
          SLICE_SECONDS,
        ),
      ),
    );
    console.log(
      `gateway CPU per request (/proc, during its own slices): ${cpuPerRequest(rounds, 'base').toFixed(0)} us unlimited, ${cpuPerRequest(rounds, 'tried').toFixed(0)} us limited`,
    );
    const byRound = rounds.map((round) => `${round.ratio.toFixed(3)} (limited started ${round.order})`).join(', ');
    console.log(
      `ratio limited / unlimited, median of ${rounds.length * SLICES} pairs of slices: ${ratio.toFixed(3)} (goal >= ${GOAL}): ${ratio >= GOAL ? 'PASS' : 'FAIL'} (${byRound})`,
    );
    console.log(
      `overshoot: 3 gateways, one client, 48 callers, ${3 * OVERSHOOT_LIMIT} calls against a limit of ${OVERSHOOT_LIMIT}: ${admitted} admitted (${admitted - OVERSHOOT_LIMIT >= 0 ? '+' : ''}${admitted - OVERSHOOT_LIMIT})`,
    );
    if (ratio < GOAL || admitted > OVERSHOOT_LIMIT) process.exitCode = 1;
  } finally {
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
