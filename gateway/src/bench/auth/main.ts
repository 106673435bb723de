// `npm run bench:auth`: what `--auth verify` costs. The same gateway, the same API and service, with and without
// verification, measured side by side in alternating slices at 64 connections, with RS256 tokens of 1,000 distinct
// clients (a random one per request); and the cost of one cold verification (a token never seen) beside a cached one.
// BENCH_AA=1 starts the second gateway with --auth off too: the ratio of two equal gateways, which says how fair the
// comparison is on this machine (0.95-1.05 seen here once both wait for their start's lint before being measured).
import { spawn, type ChildProcess } from 'node:child_process';
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
const SLICES = Number(process.env.BENCH_SLICES ?? 8);
const SLICE_SECONDS = Number(process.env.BENCH_SLICE_SECONDS ?? 3);
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
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'inherit'] });
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
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-auth-'));
  const nats = await startNatsServer();
  const issuer = await TestIssuer.start();
  const running: Running[] = [];
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
    const verify = await startGateway(file, nats.url, process.env.BENCH_AA ? 'off' : 'verify');
    running.push(verify);
    const off = await startGateway(file, nats.url, 'off');
    running.push(off);
    const check = await fetch(verify.url, { headers: { authorization: `Bearer ${tokens[0]}` } });
    if (check.status !== 200) throw new Error(`--auth verify answered ${check.status} to a good token`);
    if (!process.env.BENCH_AA && (await fetch(verify.url)).status !== 401)
      throw new Error('--auth verify let a call without a token through');
    // Warm-up: JIT, connections, and every client's token verified once (the cold cost is measured apart, below).
    await runWrk(verify.url, CONNECTIONS, 3, script);
    await runWrk(off.url, CONNECTIONS, 3, script);
    const cpuOf = (child: ChildProcess): number => {
      const fields = readFileSync(`/proc/${child.pid}/stat`, 'utf8').split(') ')[1].split(' ');
      return (Number(fields[11]) + Number(fields[12])) / 100;
    };
    const cpuBefore = running.map(({ child }) => cpuOf(child));
    const slices: LoadResult[][] = [[], []];
    for (let slice = 0; slice < SLICES; slice++) {
      const order = slice % 2 ? [1, 0] : [0, 1];
      for (const i of order) slices[i].push(await runWrk([verify, off][i].url, CONNECTIONS, SLICE_SECONDS, script));
    }
    const [withAuth, without] = slices.map(combine);
    // CPU of each gateway over its slices, per request served: what the verification adds to the gateway's work.
    const cpuPerRequest = running.map(({ child }, i) => {
      const requests = slices[i].reduce((sum, slice) => sum + slice.requests, 0);
      return ((cpuOf(child) - cpuBefore[i]) / requests) * 1e6;
    });
    const ratio = withAuth.rps / without.rps;
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
      `bench:auth: ${CONNECTIONS} connections, RS256 tokens of ${CLIENTS} clients, ${SLICES} alternating slices of ${SLICE_SECONDS} s`,
    );
    console.log(row('restbus-gateway --auth off', without));
    console.log(row('restbus-gateway --auth verify', withAuth));
    console.log(
      `gateway CPU per request (/proc, over the slices): ${cpuPerRequest[1].toFixed(0)} us without, ${cpuPerRequest[0].toFixed(0)} us with verification`,
    );
    console.log(`ratio verify / off: ${ratio.toFixed(3)} (goal >= ${GOAL}): ${ratio >= GOAL ? 'PASS' : 'FAIL'}`);
    console.log(
      `one verification in-process: ${cost.cold.toFixed(1)} us cold (RS256 signature check), ${cost.cached.toFixed(2)} us cached (ratio ${(cost.cold / cost.cached).toFixed(0)}x)`,
    );
    if (ratio < GOAL) process.exitCode = 1;
  } finally {
    // SIGINT: a clean stop, which writes the profiles asked for.
    await Promise.all(
      running.map(({ child }) => new Promise((done) => (child.once('exit', done), child.kill('SIGINT')))),
    );
    await issuer.close();
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

void main().catch((err: unknown) => {
  console.error(err);
  process.exit(1);
});
