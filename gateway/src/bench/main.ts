// `npm run bench:gateway`: the gateway against references measured in the same run, on this machine: its forwarding
// path (-u) beside other forwarders, hybrid mode's forwarded path (-u -m) beside plain -u, and its contract-first
// mock (-m) beside Prism's on the same OpenAPI document.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  freePort,
  median,
  prismVersion,
  runWrk,
  startNatsServer,
  startPrism,
  waitUntil,
  type LoadResult,
} from '@restbus/infra/testing';
import { PET, PET_PATH, writeBenchApi, writePetApi } from './write-bench-api';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = [64, 1];
/** A pair compared within a few percent runs in alternating slices: this many of this many seconds each. */
const SLICES = Number(process.env.BENCH_SLICES ?? 6);
const SLICE_SECONDS = 2;
const entry = join(__dirname, 'target-main.js');

const GATEWAY = 'restbus-gateway';
const HYBRID = 'restbus-gateway -u -m (hybrid)';
const FORWARDER = 'framework-free forwarder';
const MOLECULER = 'moleculer-web 0.10 + moleculer 0.14';
const EXPRESS = 'naive express forwarder';
const RAW = 'raw NATS request/reply';
const MOCK = 'restbus-gateway -m';
const PRISM = 'Prism';
const STATIC = 'node:http, the same bytes (ceiling)';
/** What the bench responder answers, through every forwarder. */
const HELLO = { hello: 'world' };

/** A server under load: where wrk sends its requests, and how to stop it. */
interface Running {
  url: string;
  stop(): Promise<void>;
}

/** One server of the run, started afresh each round. */
interface Target {
  name: string;
  start(): Promise<Running>;
  /** The JSON body of the answer measured; any other answer fails the run, since its figures would mean nothing. */
  expected: unknown;
  /** Whether the answer must come from the service, not from the gateway's mock (hybrid mode's fallback). */
  byService: boolean;
}

/** A table of the results: its rows' ratios are taken against `reference`, measured in the same rounds. */
interface Section {
  heading: string;
  reference: string;
  rows: string[];
}

interface Forked {
  process: ChildProcess;
  port?: number;
}

function spawnTarget(args: string[], execArgv: string[] = []): Promise<Forked & { result?: LoadResult }> {
  return new Promise((resolve, reject) => {
    const child = fork(entry, args, { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (message: { port?: number; result?: LoadResult }) => resolve({ process: child, ...message }));
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before it was ready`)));
  });
}

function stop(child: { process: ChildProcess }): Promise<void> {
  return new Promise((resolve) => {
    if (child.process.exitCode !== null || child.process.signalCode !== null) return resolve();
    child.process.once('exit', () => resolve());
    child.process.kill('SIGKILL');
  });
}

function memoryOf(child: Forked): Promise<{ rss: number; heapUsed: number }> {
  return new Promise((resolve) => {
    child.process.once('message', (message: { rss: number; heapUsed: number }) => resolve(message));
    child.process.send({ cmd: 'memory' });
  });
}

/** A target of target-main.ts, loaded at `path`. */
async function startForked(args: string[], path: string): Promise<Running> {
  const child = await spawnTarget(args);
  return { url: `http://127.0.0.1:${child.port}${path}`, stop: () => stop(child) };
}

/** Prism mocking `document`, loaded at the pet's path; it takes seconds to start, so it is polled until it answers. */
async function startPrismOn(document: string): Promise<Running> {
  const port = await freePort();
  const child = startPrism(document, port);
  const url = `http://127.0.0.1:${port}${PET_PATH}`;
  await waitUntil(child, async () => (await fetch(url)).status > 0);
  return { url, stop: () => stop(child) };
}

/** One request as a client sends it, before the target is measured. */
async function verify(target: Target, url: string): Promise<void> {
  const response = await fetch(url);
  const text = await response.text();
  const problems: string[] = [];
  if (response.status !== 200) problems.push(`status ${response.status}`);
  if (!/^application\/json\b/.test(response.headers.get('content-type') ?? ''))
    problems.push(`content-type ${response.headers.get('content-type')}`);
  if (target.byService && response.headers.has('x-restbus-mocked')) problems.push('answered by the mock');
  let body: unknown;
  try {
    body = JSON.parse(text);
  } catch {
    body = undefined;
  }
  if (!isDeepStrictEqual(body, target.expected)) problems.push(`body ${JSON.stringify(text.slice(0, 200))}`);
  if (problems.length) throw new Error(`${target.name} (${url}) answers wrongly: ${problems.join('; ')}`);
}

/** Results by target and connections, in round order, so that the n-th of two targets come from the same round. */
const results = new Map<string, LoadResult[]>();
const runsOf = (name: string, connections: number): LoadResult[] => results.get(`${name}|${connections}`) ?? [];
const record = (name: string, connections: number, result: LoadResult): void => {
  results.set(`${name}|${connections}`, [...runsOf(name, connections), result]);
};

async function measure(target: Target): Promise<void> {
  const running = await target.start();
  try {
    await verify(target, running.url);
    await runWrk(running.url, 16, 1); // warm-up (JIT, connections)
    for (const connections of CONNECTIONS)
      record(target.name, connections, await runWrk(running.url, connections, SECONDS));
  } finally {
    await running.stop();
  }
}

/** Slices of one load as one result: their throughput over their time together, the median of their latencies. */
function combine(slices: LoadResult[], seconds: number): LoadResult {
  const requests = slices.reduce((sum, slice) => sum + slice.requests, 0);
  return {
    requestsPerSecond: requests / (seconds * slices.length),
    p50: median(slices.map((slice) => slice.p50)),
    p99: median(slices.map((slice) => slice.p99)),
    requests,
  };
}

/**
 * Two targets a goal compares within a few percent, both running, measured in alternating slices (A B, B A, A B …):
 * a slow spell of this shared machine then weighs on both alike instead of on whichever ran during it.
 */
async function measurePair(pair: [Target, Target]): Promise<void> {
  const running: Running[] = [];
  try {
    for (const target of pair) running.push(await target.start());
    for (const [i, target] of pair.entries()) await verify(target, running[i].url);
    // Warm-up (JIT, connections, the responder they share) in the same alternation as the slices measured.
    for (const i of [0, 1, 1, 0]) await runWrk(running[i].url, 64, 1);
    for (const connections of CONNECTIONS) {
      const slices: LoadResult[][] = [[], []];
      for (let slice = 0; slice < SLICES; slice++) {
        for (const i of slice % 2 ? [1, 0] : [0, 1])
          slices[i].push(await runWrk(running[i].url, connections, SLICE_SECONDS));
      }
      pair.forEach((target, i) => record(target.name, connections, combine(slices[i], SLICE_SECONDS)));
    }
  } finally {
    for (const target of running) await target.stop();
  }
}

function summary(name: string, connections: number): LoadResult {
  const runs = runsOf(name, connections);
  return {
    requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
    requests: median(runs.map((r) => r.requests)),
  };
}

type Pick = (result: LoadResult) => number;

/**
 * Each round's ratio. Both figures of a ratio come from the same round, minutes apart at most, so that a slow spell
 * of this shared machine weighs on both rather than on whichever target it happened to hit.
 */
function roundRatios(name: string, reference: string, connections: number, pick: Pick): number[] {
  const references = runsOf(reference, connections);
  return runsOf(name, connections).map((result, round) => pick(result) / pick(references[round]));
}

const ratio = (name: string, reference: string, connections: number, pick: Pick): number =>
  median(roundRatios(name, reference, connections, pick));

const rps = (result: LoadResult): number => result.requestsPerSecond;
const p99 = (result: LoadResult): number => result.p99;
const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

function table(section: Section): string[] {
  const lines = [
    `${section.heading}; ratios against ${section.reference}.`,
    '',
    '| target | connections | requests/s | p50 ms | p99 ms | throughput ratio | p99 ratio |',
    '| --- | --- | --- | --- | --- | --- | --- |',
  ];
  for (const connections of CONNECTIONS) {
    for (const name of section.rows) {
      const s = summary(name, connections);
      const throughput = ratio(name, section.reference, connections, rps);
      lines.push(
        `| ${name} | ${connections} | ${fmt(s.requestsPerSecond, 0)} | ${fmt(s.p50, 3)} | ${fmt(s.p99, 3)} | ${fmt(throughput)}x | ${fmt(ratio(name, section.reference, connections, p99))}x |`,
      );
    }
  }
  return [...lines, ''];
}

/** The goals at 64 connections: the call path's (issue 14), the mock's and hybrid mode's (issue 17). */
function goals(): string[] {
  // [what, target, its reference, the figure compared, limit, whether lower is better]
  const all: Array<[string, string, string, Pick, number, boolean]> = [
    ['throughput vs the framework-free forwarder', GATEWAY, FORWARDER, rps, 1.0, false],
    ['throughput vs moleculer-web', GATEWAY, MOLECULER, rps, 1.1, false],
    ['p99 vs the framework-free forwarder', GATEWAY, FORWARDER, p99, 1.2, true],
    ['-u -m (forwarded) throughput vs plain -u', HYBRID, GATEWAY, rps, 0.95, false],
    ['-m throughput vs Prism', MOCK, PRISM, rps, 5, false],
    ['-m p99 vs Prism', MOCK, PRISM, p99, 0.1, true],
  ];
  // Each round's ratio beside the median: on this machine they spread by tens of percent, which a goal within a
  // few percent must be read against.
  const lines = ['| goal at 64 connections | measured | rounds | goal | met |', '| --- | --- | --- | --- | --- |'];
  for (const [what, name, reference, pick, limit, lowerIsBetter] of all) {
    const measured = ratio(name, reference, 64, pick);
    const rounds = roundRatios(name, reference, 64, pick).map((value) => fmt(value));
    const met = lowerIsBetter ? measured <= limit : measured >= limit;
    lines.push(
      `| ${what} | ${fmt(measured)}x | ${rounds.join(', ')} | ${lowerIsBetter ? '<=' : '>='} ${fmt(limit)}x | ${met ? 'yes' : 'no'} |`,
    );
  }
  const mock = summary(MOCK, 1).p50;
  const prism = summary(PRISM, 1).p50;
  lines.push('', `At 1 connection -m answers in ${fmt(mock, 3)} ms at the median, Prism in ${fmt(prism, 3)} ms.`);
  // A closed loop of 64 connections waits 64 / throughput per request on average (Little's law), and a p99 is
  // above the mean: this says how far the p99 goal is from what the throughput allows, and from Node's own ceiling.
  const wait = (name: string): number => (64 / summary(name, 64).requestsPerSecond) * 1000;
  lines.push(
    `At 64 connections a request waits 64 / throughput on average (Little's law): -m ${fmt(wait(MOCK), 3)} ms, ` +
      `${STATIC} ${fmt(wait(STATIC), 3)} ms (p99 ${fmt(summary(STATIC, 64).p99, 3)} ms), against a p99 goal of ` +
      `0.1x Prism's = ${fmt(summary(PRISM, 64).p99 / 10, 3)} ms.`,
  );
  return lines;
}

/** The gateway's memory with 1,000 described endpoints after at least 100k requests. */
async function memory(natsUrl: string, dir: string): Promise<string> {
  const bigApi = join(dir, 'big.json');
  await writeBenchApi(bigApi, 1000);
  const big = await spawnTarget(['gateway', natsUrl, bigApi, '-u'], ['--expose-gc']);
  try {
    let sent = 0;
    while (sent < 100_000) sent += (await runWrk(`http://127.0.0.1:${big.port}/hello`, 64, 10)).requests;
    const { rss, heapUsed } = await memoryOf(big);
    return `Gateway after ${sent} requests with 1,000 described endpoints: RSS ${fmt(rss / 1024 / 1024, 1)} MB, heap in use after a full GC ${fmt(heapUsed / 1024 / 1024, 1)} MB.`;
  } finally {
    await stop(big);
  }
}

async function main(): Promise<void> {
  const loadBefore = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-'));
  const nats = await startNatsServer();
  const api = join(dir, 'hello.json');
  const petApi = join(dir, 'pets.json');
  await writeBenchApi(api);
  await writePetApi(petApi);
  const responder = await spawnTarget(['responder', nats.url]);
  const moleculerResponder = await spawnTarget(['moleculer-responder', nats.url]);
  const forwarding = (name: string, args: string[]): Target => ({
    name,
    start: () => startForked([args[0], nats.url, ...args.slice(1)], '/hello'),
    expected: HELLO,
    byService: true,
  });
  // Hybrid beside plain -u in alternating slices: the ratio with the tightest goal (5 %) compares runs seconds apart.
  const pair: [Target, Target] = [
    forwarding(GATEWAY, ['gateway', api, '-u']),
    forwarding(HYBRID, ['gateway', api, '-u', '-m']),
  ];
  const targets: Target[] = [
    forwarding(FORWARDER, ['plain']),
    forwarding(MOLECULER, ['moleculer-web']),
    forwarding(EXPRESS, ['express']),
    {
      name: MOCK,
      // Quiet, as Prism is run (see startPrism): a log line per request costs the gateway a quarter to a third of
      // its CPU on this path, and the comparison would measure the loggers rather than the mocks.
      start: () => startForked(['gateway', nats.url, petApi, '-m', '-l', 'warn'], PET_PATH),
      expected: PET,
      byService: false,
    },
    { name: PRISM, start: () => startPrismOn(petApi), expected: PET, byService: false },
    { name: STATIC, start: () => startForked(['static', nats.url], PET_PATH), expected: PET, byService: false },
  ];
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`round ${round}/${ROUNDS}\n`);
      // Every other round in reverse, so that no target always runs first or right after the same one.
      if (round % 2) await measurePair(pair);
      for (const target of round % 2 ? targets : [...targets].reverse()) await measure(target);
      if (!(round % 2)) await measurePair(pair);
      for (const connections of CONNECTIONS) {
        const raw = await spawnTarget(['raw', nats.url, String(connections), String(SECONDS)]);
        record(RAW, connections, raw.result!);
      }
    }
    const sections: Section[] = [
      {
        heading: 'Forwarding (-u), GET /hello answered by a trivial responder over NATS',
        reference: FORWARDER,
        rows: [GATEWAY, FORWARDER, MOLECULER, EXPRESS, RAW],
      },
      {
        heading: 'Hybrid mode (-u -m), the same calls answered by the same responder (the mock stands by)',
        reference: GATEWAY,
        rows: [HYBRID, GATEWAY],
      },
      {
        heading: `Contract-first mock (-m) beside Prism ${prismVersion()}, both logging no line per request (\`-l warn\`, \`-v warn\`; otherwise their defaults), GET ${PET_PATH} of the same OpenAPI 3.0 document (200 with an example)`,
        reference: PRISM,
        rows: [MOCK, PRISM, STATIC],
      },
    ];
    const lines = [
      // Other work on the machine shows up in every row; the load average says how much there was.
      `Load average (1 min) at the start ${fmt(loadBefore)}, at the end ${fmt(loadavg()[0])} on ${availableParallelism()} cores.`,
      `Medians of ${ROUNDS} rounds of ${SECONDS} s (wrk, 1 thread, after 1 s at 16 connections), the targets one after the other, ` +
        'every other round in reverse order; a ratio is the median of the ratios of the rounds. ' +
        `${GATEWAY} and ${HYBRID} run side by side, measured in ${SLICES} alternating slices of ${SLICE_SECONDS} s each per round.`,
      '',
      ...sections.flatMap(table),
      ...goals(),
      '',
      await memory(nats.url, dir),
    ];
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    await stop(moleculerResponder);
    await stop(responder);
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
