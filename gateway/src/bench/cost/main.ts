// `npm run bench:cost` (node gateway/dist/bench/cost/main.js after tsc -b): the time and memory figures of the
// gateway's request paths, which npm test no longer asserts (issue 45: its tests count the work instead, in
// gateway/src/mock/mock-paths.cost.test.ts, gateway/src/http/parse-query.cost.test.ts and
// gateway/src/validation/create-request-validator.cost.test.ts). Each path runs at 1x and 8x its input against a real
// gateway in its own process (--validate and -m, no NATS: every call is checked, then answered from the description)
// while a probe keeps asking it for /ping; per path: the time ratio (bound ~10x for 8x input), the longest a probe
// waited (bound 100 ms), the resident memory grown (bound 128 MiB), each with a verdict. Then the live-heap metric:
// what it reads after a full collection with 15 MiB held and after it was let go. Exits 0 unless it crashed.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createInterface } from 'node:readline';
import { collectGarbageObserved, describeCost, measureWithProbe, type ProbedCost } from '@restbus/infra/testing';
import { createMetrics } from '../../observability/create-metrics';

const MAX_TIME_RATIO = 10;
const MAX_STALL_MS = 100;
/** Resident memory the gateway may grow by while it works on the 8x inputs (parsed JSON is many times its text). */
const MAX_RSS_GROWTH = 128 * 1024 * 1024;
const gatewayMain = join(__dirname, '../../main.js');

const json = (schema: unknown) => ({ required: true, content: { 'application/json': { schema } } });
const answers = (schema: unknown, types: string[] = ['application/json']) => ({
  '200': { description: 'ok', content: Object.fromEntries(types.map((type) => [type, { schema }])) },
});
const stored = { '204': { description: 'stored' } };
const item = {
  type: 'object',
  properties: { id: { type: 'integer' }, name: { type: 'string' }, tags: { type: 'array', items: { type: 'string' } } },
};
/** Many declared media types for one response: negotiation weighs the request's ranges against each. */
const MANY_TYPES = Array.from({ length: 400 }, (_, i) => `application/vnd.restbus.t${i}+json`);

const paths: Record<string, Record<string, unknown>> = {
  '/ping': { get: { responses: answers({ type: 'string', example: 'pong' }) } },
  '/unique': {
    post: { requestBody: json({ type: 'array', uniqueItems: true, items: { type: 'object' } }), responses: stored },
  },
  '/unique-deep': { post: { requestBody: json({ type: 'array', uniqueItems: true }), responses: stored } },
  '/named': {
    post: { requestBody: json({ type: 'array', items: { type: 'object', required: ['name'] } }), responses: stored },
  },
  '/deep': { post: { requestBody: json({ type: 'object', properties: { a: { type: 'array' } } }), responses: stored } },
  '/query': {
    get: {
      parameters: [
        { name: 'k', in: 'query', schema: { type: 'array', items: { type: 'string', maxLength: 8 } } },
        { name: 'limit', in: 'query', schema: { type: 'integer' } },
      ],
      responses: answers({ type: 'string', example: 'ok' }),
    },
  },
  '/headers': {
    get: {
      parameters: [{ name: 'X-Key', in: 'header', required: true, schema: { type: 'string' } }],
      responses: answers({ type: 'string', example: 'ok' }),
    },
  },
  '/negotiate': { get: { responses: answers({ type: 'string', example: 'ok' }, MANY_TYPES) } },
  '/prefer': { get: { responses: answers({ type: 'string', example: 'ok' }) } },
};
// One operation per scale: the schema is the input of -m's sampling.
for (const scale of [1, 8]) {
  paths[`/items${scale}`] = { get: { responses: answers({ type: 'array', minItems: 200 * scale, items: item }) } };
  paths[`/text${scale}`] = { get: { responses: answers({ type: 'string', minLength: 100_000 * scale }) } };
  const side = scale === 1 ? 30 : 85;
  paths[`/grid${scale}`] = {
    get: {
      responses: answers({
        type: 'array',
        minItems: side,
        items: { type: 'array', minItems: side, items: { type: 'integer' } },
      }),
    },
  };
  // Past any bound: refused as fast at 8x as at 1x, not attempted.
  paths[`/huge${scale}`] = {
    get: {
      responses: answers({
        type: 'array',
        minItems: 1_000_000 * scale,
        items: { type: 'array', minItems: 1000, items: item },
      }),
    },
  };
}

/** The gateway on the document, in its own process, once it listens. */
async function startGateway(file: string): Promise<{ child: ChildProcess; url: string }> {
  const args = ['-r', file, '-m', '--validate', '--bodyLimit', String(2 * 1024 * 1024), '-p', '0'];
  const child = spawn(process.execPath, [gatewayMain, ...args, '--log-format', 'json'], {
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  for await (const line of createInterface({ input: child.stdout! })) {
    const entry = JSON.parse(line) as { msg?: string; port?: number };
    if (entry.msg === 'gateway listening') return { child, url: `http://127.0.0.1:${entry.port}` };
  }
  throw new Error('the gateway stopped before it listened');
}

let nonce = 0;
/** A different `Prefer` each time: -m keeps its answers per request shape, and the cost is building one. */
const fresh = (): string => `nonce=${(nonce += 1)}`;

interface Path {
  name: string;
  work: (scale: number) => Promise<unknown>;
  maxTimeRatio?: number;
}

function definePaths(url: string): Path[] {
  const send = async (path: string, init: RequestInit = {}): Promise<number> => {
    const response = await fetch(`${url}${path}`, init);
    await response.arrayBuffer();
    return response.status;
  };
  const expecting = async (status: Promise<number>, expected: number, what: string): Promise<void> => {
    const got = await status;
    if (got !== expected) throw new Error(`${what} answered ${got}, not ${expected}`);
  };
  const post = (path: string, body: string, expected: number) =>
    expecting(
      send(path, { method: 'POST', headers: { 'content-type': 'application/json', prefer: fresh() }, body }),
      expected,
      `POST ${path}`,
    );
  const get = (path: string, headers: Record<string, string>, expected: number) =>
    expecting(send(path, { headers: { prefer: fresh(), ...headers } }), expected, `GET ${path}`);
  const bySize = <T>(make: (scale: number) => T): ((scale: number) => T) => {
    const made = new Map([1, 8].map((scale) => [scale, make(scale)]));
    return (scale) => made.get(scale)!;
  };

  const uniqueObjects = bySize((scale) =>
    JSON.stringify(
      Array.from({ length: 1000 * scale }, (_, i) => ({
        id: i,
        name: `person ${i}`,
        tags: ['a', 'b'],
        address: { n: i },
      })),
    ),
  );
  const nested = (leaf: number): string => `${'['.repeat(60)}${leaf}${']'.repeat(60)}`;
  const uniqueDeep = bySize(
    (scale) => `[${Array.from({ length: Math.round(1073 * scale) }, (_, i) => nested(i)).join(',')}]`,
  );
  const named = bySize((scale) => `[${Array.from({ length: (128 * 1024 * scale) / 7 }, () => '{"a":1}').join(',')}]`);
  const deep = bySize((scale) => `{"a":${'['.repeat(20_000 * scale)}${']'.repeat(20_000 * scale)}}`);
  const repeated = (scale: number) => Array.from({ length: 110 * scale }, (_, i) => `k=v${i % 97}`).join('&');
  const distinct = (scale: number) => Array.from({ length: 110 * scale }, (_, i) => `x${i}[a][b][c]=1`).join('&');
  const headers = bySize((scale): Record<string, string> =>
    Object.fromEntries([['x-key', 'k'], ...Array.from({ length: 100 * scale }, (_, i) => [`x-h${i}`, `v${i}`])]),
  );
  const accept = (scale: number) =>
    [...Array.from({ length: 150 * scale }, (_, i) => `a/x${i}`), MANY_TYPES[399]].join(',');
  const prefer = (scale: number) =>
    [...Array.from({ length: 200 * scale }, (_, i) => `x${i}="${' '.repeat(3)}a"`), fresh()].join(', ');

  return [
    { name: 'validate uniqueItems objects', work: (scale) => post('/unique', uniqueObjects(scale), 204) },
    // V8's own JSON.parse takes 5-40x as long for 8x of so many small arrays (the larger graph outgrows the young
    // generation): measured ratios 9.7-16.4; quadratic work would be 64x.
    {
      name: 'validate uniqueItems deep items',
      work: (scale) => post('/unique-deep', uniqueDeep(scale), 204),
      maxTimeRatio: 24,
    },
    { name: 'validate a body of many problems', work: (scale) => post('/named', named(scale), 400), maxTimeRatio: 16 },
    { name: 'validate deep JSON body', work: (scale) => post('/deep', deep(scale), 400) },
    { name: 'query repeated key', work: (scale) => get(`/query?${repeated(scale)}`, {}, 200) },
    { name: 'query distinct keys', work: (scale) => get(`/query?${distinct(scale)}`, {}, 200) },
    { name: 'many headers', work: (scale) => get('/headers', headers(scale), 200) },
    { name: 'mock Accept negotiation', work: (scale) => get('/negotiate', { accept: accept(scale) }, 200) },
    { name: 'mock Prefer', work: (scale) => send('/prefer', { headers: { prefer: prefer(scale) } }) },
    { name: 'mock sample minItems', work: (scale) => get(`/items${scale}`, {}, 200) },
    { name: 'mock sample minLength', work: (scale) => get(`/text${scale}`, {}, 200) },
    { name: 'mock sample nested arrays', work: (scale) => get(`/grid${scale}`, {}, 200) },
    { name: 'mock sample past the bound', work: (scale) => get(`/huge${scale}`, {}, 500) },
  ];
}

const mib = (bytes: number): string => `${(bytes / 1048576).toFixed(1)} MiB`;

function verdictOf({ report, stallMs, rssGrowthBytes }: ProbedCost, maxTimeRatio: number): string {
  const over = [
    report.timeRatio > maxTimeRatio && `time ratio over ${maxTimeRatio}`,
    stallMs > MAX_STALL_MS && `stall over ${MAX_STALL_MS} ms`,
    rssGrowthBytes >= MAX_RSS_GROWTH && `RSS over +${mib(MAX_RSS_GROWTH)}`,
  ].filter(Boolean);
  return over.length === 0 ? 'PASS' : `OVER ITS BOUND (${over.join(', ')})`;
}

/** The live-heap metric after a full collection, with 15 MiB held and after it was let go. */
async function measureHeapLive(): Promise<void> {
  const metrics = createMetrics();
  const read = async (): Promise<number> => {
    await collectGarbageObserved();
    const text = await metrics.registry.metrics();
    return Number(/^restbus_gateway_nodejs_heap_live_bytes (\S+)$/m.exec(text)?.[1]);
  };
  const before = await read();
  let held: number[][] | undefined = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i));
  const holding = await read();
  const count = held.length;
  held = undefined;
  const after = await read();
  const grown = holding - before;
  // 200 arrays of 10,000 small integers: some 15 MiB, of which the metric must see at least 12.
  const verdict = before > 1024 * 1024 && grown > 12 * 1024 * 1024 ? 'PASS' : 'OVER ITS BOUND (grew less than 12 MiB)';
  console.log(
    `heap live metric: ${mib(before)} before, ${mib(holding)} holding ${count} arrays (+${mib(grown)}, bound > +12 MiB), ${mib(after)} once let go: ${verdict}`,
  );
}

async function main(): Promise<void> {
  console.log(
    `bench:cost on ${process.version}, load average ${loadavg()
      .map((n) => n.toFixed(2))
      .join(' ')}`,
  );
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-cost-'));
  const file = join(dir, 'cost.json');
  await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'cost', version: '1' }, paths }));
  const { child, url } = await startGateway(file);
  const probe = () => fetch(`${url}/ping`).then((response) => response.arrayBuffer());
  try {
    for (const path of definePaths(url)) {
      const measured = await measureWithProbe(path.name, path.work, { pid: child.pid!, probe, repeats: 3 });
      const bound = path.maxTimeRatio ?? MAX_TIME_RATIO;
      console.log(
        `${describeCost(measured.report)} (bound ${bound}); longest probe wait ${measured.stallMs.toFixed(0)} ms ` +
          `(bound ${MAX_STALL_MS}); RSS +${mib(measured.rssGrowthBytes)} (bound +${mib(MAX_RSS_GROWTH)}): ` +
          verdictOf(measured, bound),
      );
    }
  } finally {
    child.kill('SIGTERM');
    await rm(dir, { recursive: true, force: true });
  }
  await measureHeapLive();
}

main().catch((err: unknown) => {
  console.error(err);
  process.exitCode = 1;
});
