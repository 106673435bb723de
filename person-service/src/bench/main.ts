// `npm run bench:services`: GET /persons (100 stored) and PUT through gateway + person-service (JetStream store),
// against the raw NATS request/reply round trip measured in the same run.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { pingService } from '@restbus/infra';
import { measureRawNats, median, runWrk, startNatsServer, type LoadResult } from '@restbus/infra/testing';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const ROOT = resolve(__dirname, '../../..');

function freePort(): Promise<number> {
  return new Promise((done) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => done(port));
    });
  });
}

function start(args: string[]): ChildProcess {
  return spawn(process.execPath, args, { cwd: ROOT, stdio: ['ignore', 'ignore', 'inherit'] });
}

async function until(check: () => Promise<boolean>, what: string): Promise<void> {
  for (let i = 0; i < 200; i++) {
    if (await check().catch(() => false)) return;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`${what} did not come up`);
}

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-services-'));
  const nats = await startNatsServer();
  const port = await freePort();
  const children = [
    start(['person-service/dist/main.js', '-n', nats.url, '-l', 'warn']),
    start([
      'gateway/dist/main.js',
      '-r',
      'person-service/person-api.yml',
      '-u',
      '-n',
      nats.url,
      '-p',
      String(port),
      '-l',
      'warn',
    ]),
    start(['-e', `require('@restbus/infra/testing').startHelloResponder(${JSON.stringify(nats.url)}, 'bench.hello')`]),
  ];
  const base = `http://127.0.0.1:${port}`;
  try {
    await until(async () => (await pingService(nats.url, 'person-service', 500)) !== '', 'person-service');
    await until(async () => (await fetch(`${base}/-/ready`)).ok, 'the gateway');
    await fetch(`${base}/persons`, { method: 'DELETE' });
    for (let i = 0; i < 100; i++) {
      const person = { id: `p${i}`, familyName: `Family ${i}`, givenName: `Given ${i}` };
      const response = await fetch(`${base}/persons/${person.id}`, {
        method: 'PUT',
        headers: { 'content-type': 'application/json' },
        body: JSON.stringify(person),
      });
      if (!response.ok) throw new Error(`seeding failed: ${response.status}`);
    }
    const putScript = join(dir, 'put.lua');
    await writeFile(
      putScript,
      // Each request replaces one of the 100 stored persons, picked at random.
      [
        'wrk.method = "PUT"',
        'wrk.headers["Content-Type"] = "application/json"',
        'request = function()',
        '  local id = "p" .. math.random(0, 99)',
        `  return wrk.format(nil, "/persons/" .. id, nil, '{"id":"' .. id .. '","familyName":"Bench","givenName":"Put"}')`,
        'end',
        '',
      ].join('\n'),
    );

    const runs = new Map<string, LoadResult[]>();
    const record = (key: string, result: LoadResult): void => {
      runs.set(key, [...(runs.get(key) ?? []), result]);
    };
    await runWrk(`${base}/persons`, 16, 1); // warm-up
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`round ${round}/${ROUNDS}\n`);
      for (const connections of [64, 1]) {
        record(`GET /persons (100 persons)|${connections}`, await runWrk(`${base}/persons`, connections, SECONDS));
        record(
          `PUT /persons/{personId}|${connections}`,
          await runWrk(`${base}/persons/p7`, connections, SECONDS, putScript),
        );
        record(
          `raw NATS request/reply|${connections}`,
          await measureRawNats(nats.url, 'bench.hello', connections, SECONDS),
        );
      }
    }
    const lines = [
      `Medians of ${ROUNDS} rounds of ${SECONDS} s (wrk, 1 thread); ratios against the raw NATS request/reply round trip at the same concurrency.`,
      '',
      '| call | connections | requests/s | p50 ms | p99 ms | throughput vs raw NATS | p99 vs raw NATS |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    ];
    const summary = (key: string) => {
      const list = runs.get(key) ?? [];
      return {
        rps: median(list.map((r) => r.requestsPerSecond)),
        p50: median(list.map((r) => r.p50)),
        p99: median(list.map((r) => r.p99)),
      };
    };
    for (const connections of [64, 1]) {
      const raw = summary(`raw NATS request/reply|${connections}`);
      for (const name of ['GET /persons (100 persons)', 'PUT /persons/{personId}', 'raw NATS request/reply']) {
        const s = summary(`${name}|${connections}`);
        lines.push(
          `| ${name} | ${connections} | ${fmt(s.rps, 0)} | ${fmt(s.p50, 3)} | ${fmt(s.p99, 3)} | ${fmt(s.rps / raw.rps)}x | ${fmt(s.p99 / raw.p99)}x |`,
        );
      }
    }
    process.stdout.write(`${lines.join('\n')}\n`);
  } finally {
    for (const child of children) child.kill('SIGKILL');
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench failed: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
