// `npm run bench:mock`: restbus-mock against Prism mocking the same responses from an OpenAPI example, and a bare
// express hello world as the floor, each server in its own process, all measured in the same run on this machine.
import { spawnSync } from 'node:child_process';
import { rmSync } from 'node:fs';
import { mkdtemp, writeFile } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import {
  freePort,
  killChildren,
  killChildrenOnExit,
  median,
  prismVersion,
  runWrk,
  startChild,
  startPrism,
  waitUntil,
  type Child,
  type LoadResult,
} from '@restbus/infra/testing';
import { cpuSecondsOf } from './cpu-time';
import {
  API_VERSION,
  CREATED_ORDER,
  CUSTOMERS,
  CUSTOMERS_PATH,
  GREETING_PATH,
  IS_ALIVE_PATH,
  ITEMS_PATH,
  makeItems,
  ORDER,
  ORDERS_PATH,
  writeOpenApi,
  writeRestbusProject,
} from './write-bench-project';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const WARM_UP_SECONDS = 2;
const CONNECTIONS = 64;
const ROOT = resolve(__dirname, '../../..');

const RESTBUS = 'restbus-mock';
const PRISM = 'Prism';
const EXPRESS = 'express hello world';
const IS_ALIVE = 'GET isAlive';
const ITEMS = 'GET 10 KB JSON';
const STATEFUL = 'PUT stateful resource';
const TEMPLATED = 'GET templated';
const VALIDATED = 'POST validated';
// The features of issue 15: each must keep a wider lead over Prism than plain mock files.
const FEATURES = [STATEFUL, TEMPLATED, VALIDATED];

interface Expected {
  type: RegExp;
  /** Compared after JSON.parse when `json`, else as text; a function says whether a body that varies is right. */
  body: unknown;
  json: boolean;
  versionHeader: boolean;
  status?: number;
}

/** A request other than a plain GET of the URL: how verify sends it (wrk sends it by `script`). */
interface SentRequest {
  method: string;
  path?: string;
  headers?: Record<string, string>;
  body?: string;
}

interface Target {
  server: string;
  endpoint: string;
  url: string;
  child: Child;
  expected: Expected;
  request?: SentRequest;
  /** A wrk Lua script that sends the same request. */
  script?: string;
}

/** One request as a client would send it: a benchmark of error responses or of the wrong body measures nothing. */
async function verify(target: Target): Promise<void> {
  const { request } = target;
  const response = await fetch(request?.path ? new URL(request.path, target.url) : target.url, {
    method: request?.method,
    headers: request?.headers,
    body: request?.body,
  });
  const text = await response.text();
  const type = response.headers.get('content-type') ?? '';
  const { expected } = target;
  const problems: string[] = [];
  if (response.status !== (expected.status ?? 200)) problems.push(`status ${response.status}`);
  if (!expected.type.test(type)) problems.push(`content-type ${JSON.stringify(type)}`);
  if (expected.versionHeader && response.headers.get('x-application-api-version') !== API_VERSION)
    problems.push('no X-Application-API-Version header');
  let body: unknown = text;
  if (expected.json) {
    try {
      body = JSON.parse(text);
    } catch {
      body = undefined;
    }
  }
  const right =
    typeof expected.body === 'function'
      ? (expected.body as (body: unknown) => boolean)(body)
      : isDeepStrictEqual(body, expected.body);
  if (!right) problems.push(`unexpected body ${JSON.stringify(text.slice(0, 200))}`);
  if (problems.length)
    throw new Error(`${target.server} ${target.endpoint} (${target.url}) answers wrongly: ${problems.join('; ')}`);
}

function requireWrk(): void {
  if (spawnSync('wrk', ['--version']).error) {
    process.stderr.write('bench: wrk is not installed (Debian: apt-get install wrk)\n');
    process.exit(1);
  }
}

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

/** One wrk run plus the CPU time the server used during it, in microseconds per request. */
type Run = LoadResult & { cpuPerRequest: number };

async function measure(target: Target): Promise<Run> {
  const before = cpuSecondsOf(target.child.process.pid);
  const result = await runWrk(target.url, CONNECTIONS, SECONDS, target.script);
  const after = cpuSecondsOf(target.child.process.pid);
  const cpu = before === undefined || after === undefined ? NaN : after - before;
  return { ...result, cpuPerRequest: (cpu * 1e6) / result.requests };
}

function summary(runs: Run[]): { rps: number; p50: number; p99: number; cpu: number } {
  return {
    cpu: median(runs.map((r) => r.cpuPerRequest)),
    rps: median(runs.map((r) => r.requestsPerSecond)),
    p50: median(runs.map((r) => r.p50)),
    p99: median(runs.map((r) => r.p99)),
  };
}

const JSON_HEADERS = { 'content-type': 'application/json' };
const CUSTOMER_BODY = JSON.stringify({ name: 'Bench', email: 'bench@example.com' });

const isGreeting = (body: unknown): boolean => {
  const greeting = body as { greeting?: unknown; luckyNumber?: unknown };
  return typeof greeting?.greeting === 'string' && Number.isInteger(greeting.luckyNumber);
};

const lua = (text: string): string => JSON.stringify(text);

/** wrk scripts for the requests that are not a plain GET. */
async function writeScripts(dir: string): Promise<{ put: string; dynamic: string; order: string }> {
  const files = {
    // A random customer of the seed each time: the state is replaced, never grown.
    put: [
      'wrk.method = "PUT"',
      'wrk.headers["Content-Type"] = "application/json"',
      'request = function()',
      `  return wrk.format(nil, ${lua(CUSTOMERS_PATH)} .. "/" .. math.random(1, ${CUSTOMERS}), nil, ${lua(CUSTOMER_BODY)})`,
      'end',
    ],
    dynamic: ['wrk.headers["Prefer"] = "dynamic=true"'],
    order: [
      'wrk.method = "POST"',
      'wrk.headers["Content-Type"] = "application/json"',
      'wrk.headers["X-Api-Key"] = "bench"',
      `wrk.body = ${lua(JSON.stringify(ORDER))}`,
    ],
  };
  const paths = { put: join(dir, 'put.lua'), dynamic: join(dir, 'dynamic.lua'), order: join(dir, 'order.lua') };
  for (const [name, lines] of Object.entries(files)) {
    await writeFile(paths[name as keyof typeof paths], `${lines.join('\n')}\n`);
  }
  return paths;
}

async function main(): Promise<void> {
  requireWrk();
  const loadBefore = loadavg()[0];
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-mock-'));
  killChildrenOnExit(() => rmSync(dir, { recursive: true, force: true }));
  try {
    const items = makeItems();
    const projectDir = join(dir, 'project');
    const openApi = join(dir, 'openapi.json');
    await writeRestbusProject(projectDir, items);
    await writeOpenApi(openApi, items);

    const [restbusPort, prismPort, expressPort] = [await freePort(), await freePort(), await freePort()];
    const node = process.execPath;
    const restbus = startChild(
      RESTBUS,
      node,
      [
        'mock-server/dist/main.js',
        '--project',
        projectDir,
        '--port',
        String(restbusPort),
        '--host',
        '127.0.0.1',
        '--no-watch',
        '--log-level',
        'warn',
        // Only the validated endpoint declares what to check: the others take the same path as without it.
        '--validate',
      ],
      ROOT,
    );
    // Quiet, static examples, no error responses for violations: see startPrism.
    const prism = startPrism(openApi, prismPort);
    const express = startChild(EXPRESS, node, [join(__dirname, 'express-hello.js'), String(expressPort)], ROOT);

    const mockTargets = (server: string, child: Child, port: number, isAliveBody: unknown): Target[] => [
      {
        server,
        endpoint: IS_ALIVE,
        url: `http://127.0.0.1:${port}${IS_ALIVE_PATH}`,
        child,
        expected: { type: /^application\/json\b/, body: isAliveBody, json: server === PRISM, versionHeader: true },
      },
      {
        server,
        endpoint: ITEMS,
        url: `http://127.0.0.1:${port}${ITEMS_PATH}`,
        child,
        expected: { type: /^application\/json\b/, body: items, json: true, versionHeader: true },
      },
    ];
    const scripts = await writeScripts(dir);
    const featureTargets = (server: string, child: Child, port: number): Target[] => {
      const base = `http://127.0.0.1:${port}`;
      const json = { type: /^application\/json\b/, json: true, versionHeader: false };
      return [
        {
          server,
          endpoint: STATEFUL,
          url: `${base}${CUSTOMERS_PATH}/1`,
          child,
          request: { method: 'PUT', headers: JSON_HEADERS, body: CUSTOMER_BODY },
          script: scripts.put,
          expected: { ...json, body: (body: unknown) => (body as { name?: unknown })?.name !== undefined },
        },
        {
          server,
          endpoint: TEMPLATED,
          url: `${base}${GREETING_PATH}`,
          child,
          // Prism's counterpart of a template: a body generated from the schema for each request.
          request: server === PRISM ? { method: 'GET', headers: { prefer: 'dynamic=true' } } : undefined,
          script: server === PRISM ? scripts.dynamic : undefined,
          expected: { ...json, body: isGreeting },
        },
        {
          server,
          endpoint: VALIDATED,
          url: `${base}${ORDERS_PATH}`,
          child,
          request: { method: 'POST', headers: { ...JSON_HEADERS, 'x-api-key': 'bench' }, body: JSON.stringify(ORDER) },
          script: scripts.order,
          expected: { ...json, status: 201, body: CREATED_ORDER },
        },
      ];
    };
    const targets: Target[] = [
      // restbus-mock sends isAlive's bytes exactly as the implementation wrote them; Prism serialises the example.
      ...mockTargets(RESTBUS, restbus, restbusPort, 'true\n'),
      ...mockTargets(PRISM, prism, prismPort, true),
      ...featureTargets(RESTBUS, restbus, restbusPort),
      ...featureTargets(PRISM, prism, prismPort),
      {
        server: EXPRESS,
        endpoint: 'GET /',
        url: `http://127.0.0.1:${expressPort}/`,
        child: express,
        expected: { type: /^text\/html\b/, body: 'Hello World!', json: false, versionHeader: false },
      },
    ];

    for (const target of targets) {
      // Any answer means the server is up; whether it is the right answer is verify's to say, precisely.
      await waitUntil(target.child, async () => (await fetch(target.url)).status > 0);
      await verify(target);
    }
    for (const target of targets) {
      process.stderr.write(`warm-up ${target.server} ${target.endpoint}\n`);
      await runWrk(target.url, CONNECTIONS, WARM_UP_SECONDS, target.script);
    }
    const runs = new Map<Target, Run[]>(targets.map((target) => [target, []]));
    // Rounds interleave the servers so that a slow spell of the machine hits all of them, not one.
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`round ${round}/${ROUNDS}\n`);
      for (const target of targets) runs.get(target)!.push(await measure(target));
    }
    for (const target of targets) await verify(target);

    const result = (server: string, endpoint: string) =>
      summary(runs.get(targets.find((t) => t.server === server && t.endpoint === endpoint)!)!);
    const hello = result(EXPRESS, 'GET /');
    const lines = [
      // Other work on the machine shows up as long tails in every row; the load average says how much there was.
      `Load average (1 min) at the start ${fmt(loadBefore)}, at the end ${fmt(loadavg()[0])} on ${availableParallelism()} cores.`,
      `Medians of ${ROUNDS} runs of ${SECONDS} s after a ${WARM_UP_SECONDS} s warm-up; wrk -t1 -c${CONNECTIONS}, keep-alive; ` +
        `10 KB JSON = ${JSON.stringify(items).length} bytes; node ${process.version}, ` +
        `Prism ${prismVersion()}.`,
      '',
      '| server | endpoint | req/s | p50 ms | p99 ms | server CPU µs/req | req/s vs Prism | p99 vs Prism | req/s vs express hello |',
      '| --- | --- | --- | --- | --- | --- | --- | --- | --- |',
    ];
    const misses: string[] = [];
    const compare = (endpoints: string[], goal: { rps: number; p99: number }): void => {
      for (const endpoint of endpoints) {
        const prismResult = result(PRISM, endpoint);
        for (const server of [RESTBUS, PRISM]) {
          const s = result(server, endpoint);
          const rpsRatio = s.rps / prismResult.rps;
          const p99Ratio = s.p99 / prismResult.p99;
          lines.push(
            `| ${server} | ${endpoint} | ${fmt(s.rps, 0)} | ${fmt(s.p50)} | ${fmt(s.p99)} | ${fmt(s.cpu, 0)} | ${fmt(rpsRatio)}x | ${fmt(p99Ratio)}x | ${fmt(s.rps / hello.rps)}x |`,
          );
          if (server !== RESTBUS) continue;
          if (!(rpsRatio >= goal.rps))
            misses.push(`${endpoint}: req/s ${fmt(rpsRatio)}x Prism (target ≥ ${fmt(goal.rps)}x)`);
          if (!(p99Ratio <= goal.p99))
            misses.push(`${endpoint}: p99 ${fmt(p99Ratio)}x Prism (target ≤ ${fmt(goal.p99)}x)`);
        }
      }
    };
    compare([IS_ALIVE, ITEMS], { rps: 1.2, p99: 0.5 });
    compare(FEATURES, { rps: 3, p99: 0.25 });
    lines.push(
      `| ${EXPRESS} | GET / | ${fmt(hello.rps, 0)} | ${fmt(hello.p50)} | ${fmt(hello.p99)} | ${fmt(hello.cpu, 0)} | - | - | 1.00x |`,
      '',
    );
    lines.push(
      misses.length
        ? `Targets NOT met (restbus-mock ≥ 1.2x Prism's req/s and ≤ 0.5x its p99 on the mock files; ≥ 3x and ≤ 0.25x on ${FEATURES.join(', ')}): ${misses.join('; ')}.`
        : `Targets met: restbus-mock ≥ 1.2x Prism's req/s and ≤ 0.5x its p99 on the mock files; ≥ 3x and ≤ 0.25x on ${FEATURES.join(', ')}.`,
    );
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    // The children keep the event loop alive: without this a finished run would never exit.
    killChildren();
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
