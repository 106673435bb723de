// `npm run bench:auth`: what `--auth verify` costs. The same gateway, the same API and service, with and without
// verification, measured side by side in alternating slices at 64 connections, with RS256 tokens of 1,000 distinct
// clients (a random one per request), in rounds of new processes (each gateway started first in every other one); and
// the cost of one cold verification (a token never seen) beside a cached one. BENCH_AA=1 runs both gateways with
// --auth off: the ratio of two equal gateways, which says how fair the comparison is on this machine. BENCH_PIN=1 gives
// the gateways the second core and everything else the first: each gateway then has a core to itself, and the ratio
// is of their CPU cost alone.
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { createInterface } from 'node:readline';
import pino from 'pino';
import { median, runWrk, startHelloResponder, startNatsServer, type LoadResult } from '@restbus/infra/testing';
import { DEFAULT_ISSUER_FETCH_LIMITS } from '../../security/fetch-issuer-json';
import { IssuerKeys } from '../../security/issuer-keys';
import { loadJose } from '../../security/jose';
import { JwtVerifier } from '../../security/jwt-verifier';
import { VerifiedTokens } from '../../security/verified-tokens';
import { TestIssuer } from '../../testing/test-issuer';

const MAIN = resolve(__dirname, '../../main.js');
const CLIENTS = 1000;
const CONNECTIONS = 64;
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 6);
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 2);
/** The issue's bound: with verification, at least this share of the throughput without it. */
const GOAL = 0.9;

interface Running {
  url: string;
  child: ChildProcess;
}

async function startGateway(file: string, natsUrl: string, auth: 'verify' | 'off'): Promise<Running> {
  // BENCH_CPU_PROF=<dir>: each gateway writes a CPU profile there (see ../shared/notes/profiling.md).
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}/${auth}`]
    : [];
  const args = [...profile, MAIN, '-r', file, '-u', '-n', natsUrl, '-p', '0', '--log-format', 'json', '--auth', auth];
  const child = process.env.BENCH_PIN
    ? spawn('taskset', ['-c', '1', process.execPath, ...args], { stdio: ['ignore', 'pipe', 'inherit'] })
    : spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
  // Its log is read to the end (a line a request), so that a full pipe never holds the gateway up.
  const lines = createInterface({ input: child.stdout! });
  let url: string | undefined;
  return new Promise((resolve, reject) => {
    lines.on('line', (line) => {
      const entry = JSON.parse(line) as { msg?: string; port?: number };
      // Measured once the lint of the start is done too: a gateway still linting in its worker is slower.
      if (entry.msg === 'gateway listening') url = `http://127.0.0.1:${entry.port}/pets`;
      if (entry.msg === 'API checked for warnings' && url) resolve({ url, child });
    });
    child.once('exit', () => reject(new Error(`the gateway (--auth ${auth}) stopped before it listened`)));
  });
}

/** A wrk script sending each request with the token of one of the clients, picked at random. */
async function writeTokenScript(file: string, tokens: string[]): Promise<void> {
  const lines = [
    'local tokens = {',
    ...tokens.map((token) => `  "${token}",`),
    '}',
    'request = function()',
    '  return wrk.format(nil, nil, { ["Authorization"] = "Bearer " .. tokens[math.random(1, #tokens)] })',
    'end',
    '',
  ];
  await writeFile(file, lines.join('\n'));
}

/** Microseconds per verification: of tokens never seen (a signature check each), then of the same ones again. */
async function measureVerifyCost(issuer: TestIssuer, tokens: string[]): Promise<{ cold: number; cached: number }> {
  const jose = loadJose();
  const logger = pino({ level: 'silent' });
  const keys = new IssuerKeys({
    source: { kind: 'fixed', location: { issuer: issuer.url, jwksUri: issuer.jwksUrl } },
    jose,
    limits: DEFAULT_ISSUER_FETCH_LIMITS,
    logger,
  });
  const verifier = new JwtVerifier(keys, { claims: [] }, new VerifiedTokens(), jose, logger);
  await verifier.verify(await issuer.sign({ sub: 'warm-up' }));
  const time = async (): Promise<number> => {
    const started = process.hrtime.bigint();
    for (const token of tokens) {
      const outcome = await verifier.verify(token);
      if (outcome.kind !== 'verified') throw new Error(`a bench token was refused: ${JSON.stringify(outcome)}`);
    }
    return Number(process.hrtime.bigint() - started) / 1000 / tokens.length;
  };
  const cold = await time();
  return { cold, cached: await time() };
}

function combine(slices: LoadResult[]): { rps: number; p50: number; p99: number } {
  const requests = slices.reduce((sum, slice) => sum + slice.requests, 0);
  return {
    rps: requests / (SLICE_SECONDS * slices.length),
    p50: median(slices.map((slice) => slice.p50)),
    p99: median(slices.map((slice) => slice.p99)),
  };
}

async function main(): Promise<void> {
  if (process.env.BENCH_PIN) execFileSync('taskset', ['-a', '-cp', '0', String(process.pid)], { stdio: 'ignore' });
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-auth-'));
  const nats = await startNatsServer();
  const issuer = await TestIssuer.start();
  try {
    await issuer.addKey();
    const responder = await startHelloResponder(nats.url, 'easer.get_/pets');
    const api = {
      openapi: '3.0.3',
      info: { title: 'pets', version: '1' },
      components: {
        securitySchemes: {
          bearer: {
            type: 'http',
            scheme: 'bearer',
            'x-restbus-jwt': { issuer: issuer.url, jwksUri: issuer.jwksUrl, audience: 'pets-api' },
          },
        },
      },
      security: [{ bearer: ['pets:read'] }],
      paths: { '/pets': { get: { responses: { '200': { description: 'pets' } } } } },
    };
    const file = join(dir, 'pets.json');
    await writeFile(file, JSON.stringify(api));
    const tokens = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        issuer.sign({ sub: `client-${i}`, aud: 'pets-api', scope: 'pets:read' }, { expiresIn: 3600 }),
      ),
    );
    const script = join(dir, 'tokens.lua');
    await writeTokenScript(script, tokens);
    // Rounds of new processes, the gateways started in one order then the other: the first of two processes side by
    // side was up to 5 % slower in A/A runs (BENCH_AA), whichever it was.
    // One process differs from the next of the same build by up to 7 % (measured with BENCH_PIN, a core of its own
    // each): more rounds, not longer ones, average that out.
    const rounds: Round[] = [];
    for (let round = 0; round < ROUNDS; round++)
      rounds.push(await runRound(file, nats.url, script, tokens[0], round % 2 === 0));
    const withAuth = combine(rounds.flatMap((round) => round.slices.verify));
    const without = combine(rounds.flatMap((round) => round.slices.off));
    const cpuPerRequest = (kind: 'verify' | 'off'): number => {
      const slices = rounds.flatMap((round) => round.slices[kind]);
      const cpu = rounds.reduce((sum, round) => sum + round.cpu[kind], 0);
      return (cpu / slices.reduce((sum, slice) => sum + slice.requests, 0)) * 1e6;
    };
    // The median of the ratios of slices run back to back: a machine whose speed drifts (a shared host's neighbours
    // moved this one's throughput by half between runs) moves both of a pair alike, where the ratio of the sums
    // takes the drift of every slice in.
    const ratio = median(rounds.flatMap((round) => round.pairs));
    const ratioOfSums = withAuth.rps / without.rps;
    const fresh = await Promise.all(
      Array.from({ length: CLIENTS }, (_, i) =>
        issuer.sign({ sub: `cold-${i}`, aud: 'pets-api' }, { expiresIn: 3600 }),
      ),
    );
    const cost = await measureVerifyCost(issuer, fresh);
    await responder.close();
    const row = (name: string, r: { rps: number; p50: number; p99: number }) =>
      `${name.padEnd(28)} ${r.rps.toFixed(0).padStart(8)} req/s   p50 ${r.p50.toFixed(2).padStart(6)} ms   p99 ${r.p99.toFixed(2).padStart(6)} ms`;
    console.log(
      `bench:auth: ${CONNECTIONS} connections, RS256 tokens of ${CLIENTS} clients, ${ROUNDS} rounds of ${SLICES} alternating pairs of slices of ${SLICE_SECONDS} s`,
    );
    console.log(row('restbus-gateway --auth off', without));
    console.log(row('restbus-gateway --auth verify', withAuth));
    console.log(
      `gateway CPU per request (/proc, during its own slices): ${cpuPerRequest('off').toFixed(0)} us without, ${cpuPerRequest('verify').toFixed(0)} us with verification`,
    );
    const byRound = rounds.map((round) => `${round.ratio.toFixed(3)} ${round.order}`).join(', ');
    console.log(
      `ratio verify / off, median of ${rounds.length * SLICES} pairs of slices: ${ratio.toFixed(3)} (goal >= ${GOAL}): ${ratio >= GOAL ? 'PASS' : 'FAIL'} (${byRound}; of the sums ${ratioOfSums.toFixed(3)})`,
    );
    console.log(
      `one verification in-process: ${cost.cold.toFixed(1)} us cold (RS256 signature check), ${cost.cached.toFixed(2)} us cached (ratio ${(cost.cold / cost.cached).toFixed(0)}x)`,
    );
    if (ratio < GOAL) process.exitCode = 1;
  } finally {
    await issuer.close();
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

interface Round {
  order: string;
  slices: { verify: LoadResult[]; off: LoadResult[] };
  /** CPU seconds of each gateway during its own slices. */
  cpu: { verify: number; off: number };
  /** Each slice's ratio verify / off, of the two slices run back to back. */
  pairs: number[];
  ratio: number;
}

/** CPU seconds of a process so far (user and system), from /proc. */
function cpuOf(child: ChildProcess): number {
  const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
  return (Number(fields[11]) + Number(fields[12])) / 100;
}

/**
 * One round: both gateways started (`verifyFirst` or not), warmed up (JIT, connections, every client's token verified
 * once: the cold cost is measured apart), then measured in alternating slices, each one's CPU counted over its own
 * slices only (an idle gateway's housekeeping is not a request's cost).
 */
async function runRound(
  file: string,
  natsUrl: string,
  script: string,
  token: string,
  verifyFirst: boolean,
): Promise<Round> {
  const running: Array<{ kind: 'verify' | 'off'; gateway: Running }> = [];
  const kinds: Array<'verify' | 'off'> = verifyFirst ? ['verify', 'off'] : ['off', 'verify'];
  try {
    for (const kind of kinds) {
      const auth = kind === 'verify' && !process.env.BENCH_AA ? 'verify' : 'off';
      running.push({ kind, gateway: await startGateway(file, natsUrl, auth) });
    }
    const gatewayOf = (kind: 'verify' | 'off'): Running => running.find((one) => one.kind === kind)!.gateway;
    const verify = gatewayOf('verify');
    const check = await fetch(verify.url, { headers: { authorization: `Bearer ${token}` } });
    if (check.status !== 200) throw new Error(`--auth verify answered ${check.status} to a good token`);
    if (!process.env.BENCH_AA && (await fetch(verify.url)).status !== 401)
      throw new Error('--auth verify let a call without a token through');
    for (const { gateway } of running) await runWrk(gateway.url, CONNECTIONS, 3, script);
    const slices = { verify: [] as LoadResult[], off: [] as LoadResult[] };
    const cpu = { verify: 0, off: 0 };
    for (let slice = 0; slice < SLICES; slice++) {
      for (const { kind, gateway } of slice % 2 ? [...running].reverse() : running) {
        const before = cpuOf(gateway.child);
        slices[kind].push(await runWrk(gateway.url, CONNECTIONS, SLICE_SECONDS, script));
        cpu[kind] += cpuOf(gateway.child) - before;
      }
    }
    const pairs = slices.verify.map((verify, i) => verify.requests / slices.off[i].requests);
    const order = verifyFirst ? '(verify started first)' : '(off started first)';
    return { order, slices, cpu, pairs, ratio: median(pairs) };
  } finally {
    // SIGINT: a clean stop, which writes the profiles asked for.
    await Promise.all(
      running.map(
        ({ gateway }) => new Promise((done) => (gateway.child.once('exit', done), gateway.child.kill('SIGINT'))),
      ),
    );
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
