// `npm run bench:memory`: restbus-mock's memory figures, each with a verdict against its bound: what 100,000
// cookie-less requests to a service that writes its session leave on the heap, the server's RSS under a flood of new
// sessions posting 1 MiB bodies, and estimateMemory's estimate against the heap V8 really takes for each shape of
// body. npm test asserts what bounds them as behaviour (session-memory, state-memory-flood, estimate-memory tests).
import { spawn } from 'node:child_process';
import { rmSync } from 'node:fs';
import { resolve } from 'node:path';
import { collectGarbage } from '@restbus/infra/testing';
import { createLogger } from '@restbus/infra';
import { writeProject, type Files } from '@restbus/project-format/testing';
import { startMockServer } from '../../server/start-mock-server';
import { estimateMemory } from '../../services/stateful/estimate-memory';
import { MiB, procStatus, startProgram, verdict } from '../cost/start-program';

const ROOT = resolve(__dirname, '../../../..');
const AUTOCANNON = resolve(ROOT, 'node_modules/.bin/autocannon');
const SESSION_REQUESTS = Number(process.env.BENCH_SESSION_REQUESTS ?? 100_000);
const MAX_SESSION_GROWTH = 20 * 1024 * 1024;
// What the flood may add to the process's resident memory at its peak: the states (64 MiB of estimated memory by
// default), the bodies being parsed (1 MiB of `{}` is some 21 MB on the heap), and the headroom V8 leaves its heap
// before it collects. Measured: +395 MiB on a quiet machine, up to +640 MiB on a busy one; without the total it grew
// past 4 GiB in these 190 requests.
const FLOOD_RSS_BOUND = 768 * 1024 * 1024;
const FLOOD_REQUESTS = 190;
const FLOOD_CONCURRENCY = 4;

const shopConfig = (services: string[]): string =>
  `projectName: shop\napiVersion: v1.0.0\nauthor: me\nlicence: MIT\nserviceUrlPrefix: /rest\nservicePort: 3007\n` +
  `baseUrl: http://localhost:3007/rest\nservicesRoot: services\nservices:\n${services.map((s) => `  - ${s}\n`).join('')}`;

let over = 0;
const judge = (line: string, within: boolean): void => {
  if (!within) over++;
  process.stdout.write(`${line} ${verdict(within)}\n`);
};

/** `amount` requests from another process (so that the load does not run on the server's event loop). */
function load(url: string, amount: number): Promise<{ non2xx: number; total: number }> {
  return new Promise((done, failed) => {
    const child = spawn(AUTOCANNON, ['-j', '-c', '32', '-a', String(amount), url]);
    let out = '';
    child.stdout.on('data', (chunk: Buffer) => (out += chunk.toString()));
    child.on('error', failed);
    child.on('close', (code) => {
      if (code !== 0) return failed(new Error(`autocannon exited with ${code}`));
      const result = JSON.parse(out) as { non2xx: number; requests: { sent: number } };
      done({ non2xx: result.non2xx, total: result.requests.sent });
    });
  });
}

const settledMemory = (): number => {
  collectGarbage();
  collectGarbage();
  const usage = process.memoryUsage();
  return usage.heapUsed + usage.external + usage.arrayBuffers;
};

async function sessionMemory(): Promise<void> {
  const dir = await writeProject({
    'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n',
    'config.yml': shopConfig(['/session']),
    'server/api.js': `exports.count = (request, response) => {
  request.session.count = (request.session.count ?? 0) + 1;
  response.json({ count: request.session.count });
};
`,
    'services/session/service.yml': `name: Session
description: Counts the calls of one client
uriTemplate: /session
methods:
  GET:
    summary: count
    implementation: api.count
    responses: [{ name: OK, statusCode: 200, reason: fine }]
`,
  });
  const server = await startMockServer({
    projectDir: dir,
    port: 0,
    host: '127.0.0.1',
    watch: false,
    announce: false,
    logger: createLogger({ name: 'bench', level: 'silent' }),
  });
  try {
    await load(`${server.url}/rest/session`, 2_000);
    const before = settledMemory();
    const result = await load(`${server.url}/rest/session`, SESSION_REQUESTS);
    const grown = settledMemory() - before;
    judge(
      `sessions: ${result.total} cookie-less requests (${result.non2xx} not 2xx) to a service that writes its session: ` +
        `heap +${MiB(grown)} (bound ${MiB(MAX_SESSION_GROWTH)})`,
      grown < MAX_SESSION_GROWTH && result.non2xx === 0,
    );
  } finally {
    await server.close();
    rmSync(dir, { recursive: true, force: true });
  }
}

async function stateFlood(): Promise<void> {
  const files: Files = {
    'server/config.yml': 'environments:\n  default:\n    restapiRoot: ..\n    stateful: session\n',
    'config.yml': shopConfig(['/notes']),
    'services/notes/service.yml': `name: Notes
description: Notes, one collection per client session
style: COLLECTION
uriTemplate: /notes
methods:
  GET: { summary: List, responses: [{ name: OK, statusCode: 200, reason: fine, mockBody: seed.json }] }
  POST: { summary: Add, responses: [{ name: OK, statusCode: 201, reason: created }] }
`,
    'services/notes/seed.json': '[{"id":1,"text":"seed"}]\n',
  };
  const dir = await writeProject(files);
  const program = await startProgram(['--project', dir, '--no-watch']);
  try {
    const pid = program.child.pid!;
    const baseline = procStatus(pid, 'VmRSS');
    const head = '{"junk":[';
    const body = `${head}${Array(Math.floor((1_040_000 - head.length - 2) / 3))
      .fill('{}')
      .join(',')}]}`;
    const statuses: number[] = [];
    let sent = 0;
    const worker = async (): Promise<void> => {
      while (sent < FLOOD_REQUESTS) {
        sent++;
        const response = await fetch(`${program.url}/rest/notes`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body,
        }).catch(() => undefined);
        statuses.push(response?.status ?? 0);
        await response?.arrayBuffer().catch(() => undefined);
      }
    };
    await Promise.all(Array.from({ length: FLOOD_CONCURRENCY }, worker));
    const alive = program.child.exitCode === null && program.child.signalCode === null;
    const peak = alive ? procStatus(pid, 'VmHWM') : Number.POSITIVE_INFINITY;
    const failed = statuses.filter((status) => status !== 201).length;
    judge(
      `state flood: ${FLOOD_REQUESTS} requests of ${body.length} bytes, ${FLOOD_CONCURRENCY} at a time (${failed} not 201): ` +
        `RSS ${MiB(baseline)} at start, peak ${MiB(peak)} (+${MiB(peak - baseline)}, bound +${MiB(FLOOD_RSS_BOUND)}), ${alive ? 'alive' : 'DEAD'}`,
      alive && failed === 0 && peak - baseline <= FLOOD_RSS_BOUND,
    );
  } finally {
    await program.stop();
    rmSync(dir, { recursive: true, force: true });
  }
}

/** The heap once collecting frees no more. */
const settledHeap = (): number => {
  let last = Infinity;
  for (let round = 0; round < 10; round++) {
    collectGarbage();
    const used = process.memoryUsage().heapUsed;
    if (last - used < 64 * 1024) return used;
    last = used;
  }
  return last;
};

const many = (count: number, make: (i: number) => string): string =>
  `{"items":[${Array.from({ length: count }, (_, i) => make(i)).join(',')}]}`;

function estimates(): void {
  // The heap moves by a few hundred bytes between two readings on its own (feedback vectors, compiled code).
  const noise = 4096;
  const shapes: Array<[string, string]> = [
    ['empty objects', many(100_000, () => '{}')],
    ['empty arrays', many(100_000, () => '[]')],
    ['objects with a key of their own each', many(50_000, (i) => `{"k${i}":0}`)],
    ['one object with many keys', `{${Array.from({ length: 50_000 }, (_, i) => `"k${i}":{}`).join(',')}}`],
    ['objects sharing their keys', many(50_000, (i) => `{"id":${i},"name":"n${i}","ok":true}`)],
    ['short Latin-1 strings', many(100_000, (i) => `"${i}"`)],
    ['two-byte strings', many(50_000, (i) => `"\u0100${i}"`)],
    ['fractions', many(100_000, (i) => `${i}.5`)],
    ['nested arrays of objects', many(20_000, () => '[[{}],[{}]]')],
  ];
  for (const [name, text] of shapes) {
    // Parsed as a request body is, then copied as a stored item is (shallowly): only the copy stays. The median of
    // three measurements, each after the heap settled. Every copy is kept until the last measurement: one dropped
    // before the next could still be held by a stale register at the "before" reading, and freed by the "after" one.
    const measurements: number[] = [];
    const kept: unknown[] = [];
    for (let i = 0; i < 3; i++) {
      const before = settledHeap();
      kept.push({ ...(JSON.parse(text) as object) });
      measurements.push(settledHeap() - before);
    }
    const value = kept[2];
    const held = measurements.sort((a, b) => a - b)[1];
    const estimate = estimateMemory(value);
    judge(
      `estimateMemory, ${name}: V8 holds ${held} bytes, estimated ${estimate} (${(estimate / held).toFixed(2)}x; ` +
        `bounds: at least what V8 holds, less than 8x)`,
      estimate >= held - noise && estimate < held * 8,
    );
  }
}

async function main(): Promise<void> {
  estimates();
  await sessionMemory();
  await stateFlood();
  process.stdout.write(`bench:memory: ${over === 0 ? 'PASS' : `${over} figure(s) OVER ITS BOUND`}\n`);
}

main().then(
  () => process.exit(0),
  (err: unknown) => {
    process.stderr.write(`bench:memory failed: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
    process.exit(1);
  },
);
