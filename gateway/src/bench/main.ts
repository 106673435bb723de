// `npm run bench:gateway`: the gateway against the references measured in the same run, on this machine.
import { fork, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { median, runWrk, startNatsServer, type LoadResult } from '@restbus/infra/testing';
import { writeBenchApi } from './write-bench-api';

const ROUNDS = Number(process.env.BENCH_ROUNDS ?? 3);
const SECONDS = Number(process.env.BENCH_SECONDS ?? 5);
const CONNECTIONS = [64, 1];
const entry = join(__dirname, 'target-main.js');

interface Child {
  process: ChildProcess;
  port?: number;
}

function spawnTarget(args: string[], execArgv: string[] = []): Promise<Child & { result?: LoadResult }> {
  return new Promise((resolve, reject) => {
    const child = fork(entry, args, { execArgv, stdio: ['ignore', 'ignore', 'inherit', 'ipc'] });
    child.once('message', (message: { port?: number; result?: LoadResult }) => resolve({ process: child, ...message }));
    child.once('exit', (code) => reject(new Error(`${args[0]} exited with ${code} before it was ready`)));
  });
}

function stop(child: Child): Promise<void> {
  return new Promise((resolve) => {
    if (child.process.exitCode !== null) return resolve();
    child.process.once('exit', () => resolve());
    child.process.kill('SIGKILL');
  });
}

function memoryOf(child: Child): Promise<{ rss: number; heapUsed: number }> {
  return new Promise((resolve) => {
    child.process.once('message', (message: { rss: number; heapUsed: number }) => resolve(message));
    child.process.send({ cmd: 'memory' });
  });
}

const fmt = (value: number, digits = 2): string => (Number.isFinite(value) ? value.toFixed(digits) : '-');

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-'));
  const nats = await startNatsServer();
  const api = join(dir, 'hello.json');
  await writeBenchApi(api);
  const responder = await spawnTarget(['responder', nats.url]);
  const moleculerResponder = await spawnTarget(['moleculer-responder', nats.url]);
  const targets: Record<string, string[]> = {
    'restbus-gateway': ['gateway', nats.url, api],
    'framework-free forwarder': ['plain', nats.url],
    'moleculer-web 0.10 + moleculer 0.14': ['moleculer-web', nats.url],
    'naive express forwarder': ['express', nats.url],
  };
  const results = new Map<string, LoadResult[]>();
  const record = (name: string, connections: number, result: LoadResult): void => {
    const key = `${name}|${connections}`;
    results.set(key, [...(results.get(key) ?? []), result]);
  };
  try {
    for (let round = 1; round <= ROUNDS; round++) {
      process.stderr.write(`round ${round}/${ROUNDS}\n`);
      for (const [name, args] of Object.entries(targets)) {
        const target = await spawnTarget(args);
        await runWrk(`http://127.0.0.1:${target.port}/hello`, 16, 1); // warm-up (JIT, connections)
        for (const connections of CONNECTIONS)
          record(name, connections, await runWrk(`http://127.0.0.1:${target.port}/hello`, connections, SECONDS));
        await stop(target);
      }
      for (const connections of CONNECTIONS) {
        const raw = await spawnTarget(['raw', nats.url, String(connections), String(SECONDS)]);
        record('raw NATS request/reply', connections, raw.result!);
      }
    }

    const reference = (connections: number): LoadResult => summary('framework-free forwarder', connections);
    const summary = (name: string, connections: number): LoadResult => {
      const runs = results.get(`${name}|${connections}`) ?? [];
      return {
        requestsPerSecond: median(runs.map((r) => r.requestsPerSecond)),
        p50: median(runs.map((r) => r.p50)),
        p99: median(runs.map((r) => r.p99)),
        requests: median(runs.map((r) => r.requests)),
      };
    };
    const lines = [
      `Medians of ${ROUNDS} rounds of ${SECONDS} s (wrk, 1 thread); ratios against the framework-free forwarder at the same connections.`,
      '',
      '| target | connections | requests/s | p50 ms | p99 ms | throughput ratio | p99 ratio |',
      '| --- | --- | --- | --- | --- | --- | --- |',
    ];
    for (const connections of CONNECTIONS) {
      for (const name of [...Object.keys(targets), 'raw NATS request/reply']) {
        const s = summary(name, connections);
        const ref = reference(connections);
        lines.push(
          `| ${name} | ${connections} | ${fmt(s.requestsPerSecond, 0)} | ${fmt(s.p50, 3)} | ${fmt(s.p99, 3)} | ${fmt(s.requestsPerSecond / ref.requestsPerSecond)}x | ${fmt(s.p99 / ref.p99)}x |`,
        );
      }
    }

    // The goals of the gateway's call path (issue 14), at 64 connections.
    const gateway = summary('restbus-gateway', 64);
    const peer = summary('moleculer-web 0.10 + moleculer 0.14', 64);
    // [what, measured ratio, limit, whether lower is better]
    const goals: Array<[string, number, number, boolean]> = [
      [
        'throughput vs the framework-free forwarder',
        gateway.requestsPerSecond / reference(64).requestsPerSecond,
        1.0,
        false,
      ],
      ['throughput vs moleculer-web', gateway.requestsPerSecond / peer.requestsPerSecond, 1.1, false],
      ['p99 vs the framework-free forwarder', gateway.p99 / reference(64).p99, 1.2, true],
    ];
    lines.push('', '| goal at 64 connections | measured | goal | met |', '| --- | --- | --- | --- |');
    for (const [what, ratio, limit, lowerIsBetter] of goals) {
      const met = lowerIsBetter ? ratio <= limit : ratio >= limit;
      lines.push(
        `| ${what} | ${fmt(ratio)}x | ${lowerIsBetter ? '<=' : '>='} ${fmt(limit)}x | ${met ? 'yes' : 'no'} |`,
      );
    }

    // Memory: 1,000 described endpoints, then at least 100k requests.
    const bigApi = join(dir, 'big.json');
    await writeBenchApi(bigApi, 1000);
    const big = await spawnTarget(['gateway', nats.url, bigApi], ['--expose-gc']);
    let sent = 0;
    while (sent < 100_000) sent += (await runWrk(`http://127.0.0.1:${big.port}/hello`, 64, 10)).requests;
    const { rss, heapUsed } = await memoryOf(big);
    await stop(big);
    lines.push(
      '',
      `Gateway after ${sent} requests with 1,000 described endpoints: RSS ${fmt(rss / 1024 / 1024, 1)} MB, heap in use after a full GC ${fmt(heapUsed / 1024 / 1024, 1)} MB.`,
    );
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
