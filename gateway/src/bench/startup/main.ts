// `node gateway/dist/bench/startup/main.js` (after `tsc -b`): how long after its process is started a server answers
// its first call, the gateway (forwarding with -u to a service over NATS, and mocking with -m) beside Prism's mock on
// the same OpenAPI document, in the same run. The bound: the gateway answers within 1 s, and sooner than Prism.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { availableParallelism, loadavg, tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  freePort,
  killChildrenOnExit,
  median,
  prismVersion,
  startHelloResponder,
  startNatsServer,
  startPrism,
} from '@restbus/infra/testing';
import { PET_PATH, writePetApi } from '../write-bench-api';

const STARTS = Number(process.env.BENCH_STARTS ?? 5);
/** The bound the gateway's first answer must come within. */
const BOUND_MS = 1000;
/** How often a starting server is asked: often enough that the poll adds little to the figure. */
const POLL_MS = 5;
/** A server that has not answered by then has failed the run. */
const GIVE_UP_MS = 30_000;
const BIN = join(__dirname, '../../../bin/restbus-gateway.js');

const GATEWAY_U = 'restbus-gateway -u (forwarding)';
const GATEWAY_M = 'restbus-gateway -m (mock)';
const PRISM = 'Prism mock';

interface Target {
  name: string;
  /** Starts the server on `port`; the process is spawned when this is called. */
  start(port: number): ChildProcess;
  /** Whether this answer is the first one that counts (the service's through -u, the example with -m). */
  accepts(response: Response): boolean;
}

function stop(child: ChildProcess): Promise<void> {
  return new Promise((resolve) => {
    if (child.exitCode !== null || child.signalCode !== null) return resolve();
    child.once('exit', () => resolve());
    child.kill('SIGKILL');
  });
}

/** Milliseconds from spawning the target until it gave an answer it accepts. */
async function timeFirstAnswer(target: Target): Promise<number> {
  const port = await freePort();
  const url = `http://127.0.0.1:${port}${PET_PATH}`;
  const started = performance.now();
  const child = target.start(port);
  let output = '';
  child.stdout?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  child.stderr?.on('data', (chunk: Buffer) => (output = (output + chunk.toString()).slice(-4000)));
  try {
    while (performance.now() - started < GIVE_UP_MS) {
      if (child.exitCode !== null || child.signalCode !== null) {
        throw new Error(`${target.name} exited (${child.exitCode ?? child.signalCode}) before answering:\n${output}`);
      }
      const response = await fetch(url, { signal: AbortSignal.timeout(GIVE_UP_MS) }).catch(() => undefined);
      if (response) {
        await response.arrayBuffer();
        if (target.accepts(response)) return performance.now() - started;
      }
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    throw new Error(`${target.name} did not answer within ${GIVE_UP_MS / 1000} s:\n${output}`);
  } finally {
    await stop(child);
  }
}

const ms = (value: number): string => `${Math.round(value)} ms`.padStart(10);

async function main(): Promise<void> {
  const dir = await mkdtemp(join(tmpdir(), 'restbus-bench-startup-'));
  const nats = await startNatsServer({ jetstream: false });
  killChildrenOnExit(() => undefined);
  const responder = await startHelloResponder(nats.url, 'easer.>');
  const document = join(dir, 'pets.json');
  await writePetApi(document);
  const gateway = (flags: string[]) => (port: number) =>
    spawn(process.execPath, [BIN, '-r', document, '-p', String(port), '-n', nats.url, '-l', 'warn', ...flags], {
      stdio: ['ignore', 'pipe', 'pipe'],
    });
  const targets: Target[] = [
    {
      name: GATEWAY_U,
      start: gateway(['-u']),
      // The service's answer: the gateway answers 503 until NATS is connected.
      accepts: (response) => response.status === 200 && !response.headers.has('x-restbus-mocked'),
    },
    { name: GATEWAY_M, start: gateway(['-m']), accepts: (response) => response.status === 200 },
    {
      name: PRISM,
      start: (port) => startPrism(document, port).process,
      accepts: (response) => response.status === 200,
    },
  ];
  const figures = new Map<string, number[]>(targets.map(({ name }) => [name, []]));
  try {
    process.stdout.write(
      `startup: ${STARTS} starts each (after one unmeasured), from spawn to the first answer of GET ${PET_PATH}; ` +
        `Prism ${prismVersion()}; ${availableParallelism()} cores, load ${loadavg()[0].toFixed(2)}\n`,
    );
    // One start of each first, unmeasured: the files come into the page cache.
    for (const target of targets) await timeFirstAnswer(target);
    // Interleaved, so that a busy moment of the machine falls on every target alike.
    for (let i = 0; i < STARTS; i++) {
      for (const target of targets) figures.get(target.name)!.push(await timeFirstAnswer(target));
    }
  } finally {
    await responder.close();
    await nats.dispose();
    await rm(dir, { recursive: true, force: true });
  }
  const prism = median(figures.get(PRISM)!);
  process.stdout.write(`\n${'target'.padEnd(34)}${'median'.padStart(10)}${'max'.padStart(10)}  starts (ms)\n`);
  for (const [name, values] of figures) {
    process.stdout.write(
      `${name.padEnd(34)}${ms(median(values))}${ms(Math.max(...values))}  ${values.map(Math.round).join(' ')}\n`,
    );
  }
  process.stdout.write('\n');
  for (const name of [GATEWAY_U, GATEWAY_M]) {
    const value = median(figures.get(name)!);
    const pass = value < BOUND_MS && value < prism;
    process.stdout.write(
      `${name}: median ${Math.round(value)} ms, bound < ${BOUND_MS} ms and < Prism's ${Math.round(prism)} ms: ` +
        `${pass ? 'PASS' : 'OVER ITS BOUND'}\n`,
    );
  }
}

main().catch((err: unknown) => {
  process.stderr.write(`bench: ${err instanceof Error ? (err.stack ?? err.message) : String(err)}\n`);
  process.exit(1);
});
