import { connect } from 'nats';
import { existsSync } from 'node:fs';
import { resolve } from 'node:path';
import {
  freePort,
  startChild,
  startNatsCluster,
  waitUntil,
  type Child,
  type TestNatsCluster,
} from '@restbus/infra/testing';

// Issue 33: a rolling lame-duck restart of the three NATS nodes under load, as an operator upgrades a cluster: each
// node in turn gets SIGUSR2, exits once its clients have left, starts again and catches up before the next one goes.
// Two person-service replicas and the gateway move to another node before their old connection closes
// (make-before-break), so no call is lost and none waits for the gateway's second copy. ROLLING_RUNS (default 1)
// repeats the whole rolling restart: the 20 consecutive runs are `ROLLING_RUNS=20` (the note gives them).
const PERSON_MAIN = resolve(__dirname, '../dist/main.js');
const GATEWAY_MAIN = resolve(__dirname, '../../gateway/dist/main.js');
const PERSON_API = resolve(__dirname, '../person-api.yml');
const GATEWAY_TIMEOUT_MS = 12_000;
const RUNS = Number(process.env.ROLLING_RUNS ?? 1);

const CLIENTS = 6;
const CLIENT_TIMEOUT_MS = GATEWAY_TIMEOUT_MS + 3000;

let cluster: TestNatsCluster;
const children: Child[] = [];
let base: string;

interface Outcome {
  what: string;
  run: number;
  ms: number;
  status: number;
}

async function send(path: string, init: RequestInit = {}): Promise<number> {
  try {
    const response = await fetch(`${base}${path}`, { ...init, signal: AbortSignal.timeout(CLIENT_TIMEOUT_MS) });
    await response.arrayBuffer();
    return response.status;
  } catch {
    return 0;
  }
}

function startProgram(name: string, main: string, args: string[]): Child {
  const child = startChild(name, process.execPath, [main, ...args, '--log-format', 'json'], resolve(__dirname, '..'));
  children.push(child);
  return child;
}

/** Until every replica of the persons bucket's stream is current: a node that is behind is no quorum member yet. */
async function waitUntilCaughtUp(): Promise<void> {
  const nc = await connect({ servers: cluster.urls.split(',') });
  try {
    const jsm = await nc.jetstreamManager();
    const deadline = Date.now() + 30_000;
    for (;;) {
      const info = await jsm.streams.info('KV_persons').catch(() => undefined);
      const replicas = info?.cluster?.replicas ?? [];
      if (info?.cluster?.leader && replicas.length === 2 && replicas.every((replica) => replica.current)) return;
      if (Date.now() > deadline) throw new Error(`KV_persons did not catch up: ${JSON.stringify(info?.cluster)}`);
      await new Promise((done) => setTimeout(done, 200));
    }
  } finally {
    await nc.close();
  }
}

beforeAll(async () => {
  for (const main of [PERSON_MAIN, GATEWAY_MAIN]) {
    if (!existsSync(main)) throw new Error(`${main} is missing: run npx tsc -b gateway person-service first`);
  }
  cluster = await startNatsCluster();
  const serviceArgs = ['-n', cluster.urls, '--store', 'jetstream'];
  for (const name of ['person-service-1', 'person-service-2']) {
    const service = startProgram(name, PERSON_MAIN, serviceArgs);
    await waitUntil(service, async () => service.output().includes('"msg":"answering"'));
  }
  const port = await freePort();
  base = `http://127.0.0.1:${port}`;
  const gateway = startProgram('gateway', GATEWAY_MAIN, [
    ...['-r', PERSON_API, '-n', cluster.urls, '-u', '-p', String(port)],
    ...['--timeout', String(GATEWAY_TIMEOUT_MS)],
  ]);
  await waitUntil(gateway, async () => (await send('/persons?limit=1')) === 200);
}, 60_000);

afterAll(async () => {
  for (const child of children) child.process.kill('SIGKILL');
  await cluster?.dispose();
});

describe('person-service and the gateway on a 3-node NATS cluster', () => {
  it(
    `answer every call of ${CLIENTS} clients (half PUTs) at once while the three nodes in turn enter lame duck ` +
      `mode and start again (${RUNS} rolling restart${RUNS === 1 ? '' : 's'})`,
    async () => {
      const outcomes: Outcome[] = [];
      let run = 0;
      let running = true;

      async function client(c: number): Promise<void> {
        for (let n = 0; running; n++) {
          const id = `rl-${c}-${n % 3}`;
          const begun = performance.now();
          const write = n % 2 === 0;
          const path = write ? `/persons/${id}` : n % 4 === 1 ? '/persons?limit=10' : `/persons/${id}`;
          const status = await send(
            path,
            write
              ? {
                  method: 'PUT',
                  headers: { 'content-type': 'application/json' },
                  body: JSON.stringify({ id, familyName: 'Rolling', givenName: `${c}-${n}` }),
                }
              : {},
          );
          outcomes.push({ what: `${write ? 'PUT' : 'GET'} ${path}`, run, ms: performance.now() - begun, status });
        }
      }

      const load = Promise.all(Array.from({ length: CLIENTS }, (_, c) => client(c)));
      const lines: string[] = [];
      for (; run < RUNS; run++) {
        const started = performance.now();
        for (const node of cluster.nodes) {
          await node.enterLameDuck();
          await node.start();
          await waitUntilCaughtUp();
        }
        const ofRun = outcomes.filter((outcome) => outcome.run === run);
        const failedOfRun = ofRun.filter((outcome) => outcome.status !== 200);
        lines.push(
          `  run ${run + 1}: ${((performance.now() - started) / 1000).toFixed(1)} s, ${ofRun.length} calls, ` +
            `${failedOfRun.length} failed, slowest ${Math.round(Math.max(...ofRun.map((o) => o.ms)))} ms\n`,
        );
      }
      running = false;
      await load;

      const failed = outcomes.filter((outcome) => outcome.status !== 200);
      const slowest = Math.max(...outcomes.map((outcome) => outcome.ms));
      process.stdout.write(
        `rolling lame-duck restart of 3 nodes, ${RUNS} run(s): ${outcomes.length} calls, ${failed.length} failed, ` +
          `slowest ${Math.round(slowest)} ms\n${lines.join('')}` +
          failed
            .map((o) => `  failed ${o.what} in run ${o.run + 1}: ${o.status} after ${Math.round(o.ms)} ms\n`)
            .join(''),
      );
      expect(failed.map((o) => `${o.what} ${o.status}`)).toEqual([]);
    },
    60_000 + RUNS * 90_000,
  );
});
