// `npm run bench:failover`: the figures the person-service fault tests used to assert, measured (issue 45: npm test
// asserts outcomes, a benchmark prints figures). Under the cluster tests' mixed load (8 clients, half PUTs; two
// person-service replicas and the gateway with the cluster stack's 12 s timeout, on a 3-node NATS cluster with
// fault proxies, nodes pinging every second and giving up after two), one scenario after another:
//
//   leader killed / cut off 8 s / cut off 25 s    p99 of every call  <= the election + 1 s  (leader-kill, faults)
//   clients cut off from the gateway's node       how long until the gateway left it, p99  (faults)
//   slow routes (200 ms each way on the leader)   p99, longest                              (faults)
//   rolling lame-duck restart of the 3 nodes      how long it took, the slowest call        (rolling-lame-duck)
//   person-service replicas restarted (SIGTERM)   slowest call  <  the hedge (timeout / 2) - 500 ms (rolling-restart)
//   a late JetStream acknowledgement              the write's wait  <  1000 ms (ackWaitMs 200) (person-events)
//
// Each figure is printed with its bound and a verdict, PASS or OVER ITS BOUND; the exit code is 0 either way unless
// the benchmark itself failed. BENCH_FAILOVER_ONLY=kill,cut,long-cut,clients,slow,lame-duck,replicas,events runs
// some of them. `npx tsc -b` first (the root script does).
import { Writable } from 'node:stream';
import { loadavg } from 'node:os';
import { connect } from 'nats';
import pino from 'pino';
import {
  killChildrenOnExit,
  startNatsCluster,
  startNatsServer,
  type Child,
  type TestNatsCluster,
  type TestNatsServer,
} from '@restbus/infra/testing';
import { createPersonEvents, PERSON_EVENTS_STREAM } from '../../persons/person-events';
import {
  findLostWrites,
  firstWriteAfter,
  loadFigures,
  percentile,
  startPersonStack,
  startReplica,
  startTimedLoad,
  waitUntilCaughtUp,
  type LoadFigures,
  type PersonStack,
} from './timed-load';

const GATEWAY_TIMEOUT_MS = 12_000;
const FAULT_AT_MS = 3000;
const AFTER_MS = 4000;
const ONLY = new Set((process.env.BENCH_FAILOVER_ONLY ?? '').split(',').filter(Boolean));
const runs = (name: string): boolean => ONLY.size === 0 || ONLY.has(name);

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));
const progress = (message: string): boolean => process.stderr.write(`${message}\n`);
const round = (ms: number): string => (Number.isFinite(ms) ? `${Math.round(ms)} ms` : 'never');

interface Row {
  scenario: string;
  figure: string;
  value: number;
  /** The bound the figure is held to, or undefined: printed for the record. */
  bound?: number;
  note: string;
}
const rows: Row[] = [];

function record(row: Row): void {
  rows.push(row);
  progress(
    `  ${row.scenario}: ${row.figure} ${round(row.value)}${row.bound === undefined ? '' : ` (bound ${round(row.bound)})`}`,
  );
}

const describeLoad = (f: LoadFigures): string =>
  `${f.calls} calls, ${f.failed} failed (${f.unhelpful} other than 503 + Retry-After), ${f.lost} writes lost, ` +
  `p50 ${round(f.p50)}, longest ${round(f.longest)}`;

/** The node a peer of `old` names leader of KV_persons, once one other than `old` is. */
async function newLeaderOf(cluster: TestNatsCluster, old: TestNatsServer): Promise<TestNatsServer> {
  const peers = cluster.nodes.filter((node) => node !== old);
  for (let tries = 0; tries < 3000; tries++) {
    for (const node of peers) {
      const nc = await connect({ servers: node.url, timeout: 1000 }).catch(() => undefined);
      try {
        const info = await (await nc?.jetstreamManager({ timeout: 1000 }))?.streams.info('KV_persons');
        const leader = cluster.nodes.find((_, i) => `n${i + 1}` === info?.cluster?.leader);
        if (leader && leader !== old) return leader;
      } catch {
        // no leader yet on this side
      } finally {
        await nc?.close();
      }
    }
    await sleep(100);
  }
  throw new Error(`the peers of ${old.url} named no other leader`);
}

/** Kill or cut the leader under load; p99 against the election + 1 s. */
async function leaderLoss(
  cluster: TestNatsCluster,
  stack: PersonStack,
  scenario: string,
  fault: (leader: TestNatsServer) => Promise<() => Promise<void>>,
  faultMs: number,
): Promise<void> {
  progress(`${scenario} …`);
  const load = startTimedLoad(stack.base, scenario.replace(/\W+/g, '-'));
  await sleep(FAULT_AT_MS);
  const leader = await cluster.leaderOf('KV_persons');
  const faultAt = load.now();
  const undo = await fault(leader);
  await newLeaderOf(cluster, leader);
  const leaderKnown = load.now() - faultAt;
  await sleep(Math.max(0, faultMs - (load.now() - faultAt)));
  await undo();
  await load.stopAfter(AFTER_MS);
  const lost = await findLostWrites(stack.base, load.written);
  const figures = loadFigures(load.outcomes, lost);
  const election = Math.min(firstWriteAfter(load.outcomes, faultAt), leaderKnown);
  record({
    scenario,
    figure: 'election (first write acknowledged after the fault, or leader named)',
    value: election,
    note: '',
  });
  record({
    scenario,
    figure: 'p99 of every call',
    value: figures.p99,
    bound: election + 1000,
    note: describeLoad(figures),
  });
  await waitUntilCaughtUp(cluster);
}

async function faultScenarios(): Promise<void> {
  const names = ['kill', 'cut', 'long-cut', 'clients', 'slow', 'lame-duck'];
  if (!names.some(runs)) return;
  const cluster = await startNatsCluster({ faults: true, pingInterval: '1s', pingMax: 2 });
  let stack: PersonStack | undefined;
  try {
    stack = await startPersonStack({ servers: cluster.urls, gatewayTimeoutMs: GATEWAY_TIMEOUT_MS });
    const faults = cluster.faults!;
    if (runs('kill'))
      await leaderLoss(
        cluster,
        stack,
        'leader killed',
        async (leader) => {
          await leader.kill();
          return () => leader.start();
        },
        12_000,
      );
    if (runs('cut'))
      await leaderLoss(
        cluster,
        stack,
        'leader cut off from its peers for 8 s',
        async (leader) => {
          faults.setRoutes(leader, { kind: 'blackhole' });
          return async () => faults.heal();
        },
        8000,
      );
    if (runs('long-cut'))
      await leaderLoss(
        cluster,
        stack,
        'leader cut off from its peers for 25 s',
        async (leader) => {
          faults.setRoutes(leader, { kind: 'blackhole' });
          return async () => faults.heal();
        },
        25_000,
      );
    if (runs('clients')) await clientsCut(cluster, stack);
    if (runs('slow')) await slowRoutes(cluster, stack);
    if (runs('lame-duck')) await rollingLameDuck(cluster, stack);
  } finally {
    stack?.stop();
    await cluster.dispose();
  }
}

async function clientsCut(cluster: TestNatsCluster, stack: PersonStack): Promise<void> {
  const scenario = "the gateway's node cut off from its clients for 10 s";
  progress(`${scenario} …`);
  const faults = cluster.faults!;
  const nodeOf = (program: string): TestNatsServer | undefined => {
    const event = stack
      .linkEvents()
      .filter((e) => e.program === program && / at 127\.0\.0\.1:\d+/.test(e.msg))
      .pop();
    const port = Number(/ at 127\.0\.0\.1:(\d+)/.exec(event?.msg ?? '')?.[1]);
    return cluster.nodes.find((node) => faults.client(node).port === port);
  };
  const load = startTimedLoad(stack.base, 'clients');
  await sleep(FAULT_AT_MS);
  const node = nodeOf('gateway')!;
  const cutAt = load.now();
  faults.client(node).setMode({ kind: 'blackhole' });
  let leftAfter = Infinity;
  for (let waited = 0; waited < 10_000; waited += 50) {
    if (leftAfter === Infinity && nodeOf('gateway') !== node) leftAfter = load.now() - cutAt;
    await sleep(50);
  }
  faults.heal();
  await load.stopAfter(3000);
  const figures = loadFigures(load.outcomes, await findLostWrites(stack.base, load.written));
  record({ scenario, figure: 'until the gateway left the node', value: leftAfter, note: '' });
  record({ scenario, figure: 'p99 of every call', value: figures.p99, note: describeLoad(figures) });
  await waitUntilCaughtUp(cluster);
}

async function slowRoutes(cluster: TestNatsCluster, stack: PersonStack): Promise<void> {
  const scenario = "200 ms each way on the leader's routes for 10 s";
  progress(`${scenario} …`);
  const load = startTimedLoad(stack.base, 'slow');
  await sleep(FAULT_AT_MS);
  const leader = await cluster.leaderOf('KV_persons');
  cluster.faults!.setRoutes(leader, { kind: 'delay', delayMs: 200 });
  await sleep(10_000);
  cluster.faults!.heal();
  await load.stopAfter(3000);
  const figures = loadFigures(load.outcomes, await findLostWrites(stack.base, load.written));
  record({ scenario, figure: 'p99 of every call', value: figures.p99, note: describeLoad(figures) });
  await waitUntilCaughtUp(cluster);
}

async function rollingLameDuck(cluster: TestNatsCluster, stack: PersonStack): Promise<void> {
  const scenario = 'rolling lame-duck restart of the 3 nodes';
  progress(`${scenario} …`);
  const load = startTimedLoad(stack.base, 'lame-duck');
  await sleep(1000);
  const begun = load.now();
  const perNode: string[] = [];
  for (const [i, node] of cluster.nodes.entries()) {
    const nodeBegun = load.now();
    await node.enterLameDuck();
    await node.start();
    await waitUntilCaughtUp(cluster);
    perNode.push(`node ${i + 1} ${round(load.now() - nodeBegun)}`);
  }
  const took = load.now() - begun;
  await load.stopAfter(0);
  const during = load.outcomes.filter((o) => o.at >= begun);
  const figures = loadFigures(during, await findLostWrites(stack.base, load.written));
  record({ scenario, figure: 'how long it took', value: took, note: perNode.join(', ') });
  record({ scenario, figure: 'the slowest call', value: figures.longest, note: describeLoad(figures) });
}

/** Two replicas on one server, each in turn stopped with SIGTERM and started again, under 6 clients. */
async function replicaRestarts(): Promise<void> {
  const scenario = 'person-service replicas restarted one after another (SIGTERM), 2 rounds';
  progress(`${scenario} …`);
  const timeoutMs = 6000;
  const nats = await startNatsServer();
  let stack: PersonStack | undefined;
  try {
    stack = await startPersonStack({ servers: nats.url, gatewayTimeoutMs: timeoutMs, replicas: 0 });
    const children: Child[] = [];
    const replicas = [
      await startReplica('person-service-1', nats.url, children),
      await startReplica('person-service-2', nats.url, children),
    ];
    const load = startTimedLoad(stack.base, 'replicas', 6, 3);
    const begun = load.now();
    for (let roundNo = 0; roundNo < 2; roundNo++) {
      for (let r = 0; r < 2; r++) {
        await sleep(1000);
        const exited = new Promise((done) => replicas[r].process.once('exit', done));
        replicas[r].process.kill('SIGTERM');
        await exited;
        await sleep(1000);
        replicas[r] = await startReplica(`person-service-${r + 1}`, nats.url, children);
      }
    }
    const took = load.now() - begun;
    await load.stopAfter(1000);
    const figures = loadFigures(load.outcomes, await findLostWrites(stack.base, load.written));
    children.forEach((child) => child.process.kill('SIGKILL'));
    record({ scenario, figure: 'how long the 4 restarts took', value: took, note: '' });
    record({
      scenario,
      figure: 'the slowest call',
      value: figures.longest,
      bound: timeoutMs / 2 - 500,
      note: describeLoad(figures),
    });
  } finally {
    stack?.stop();
    await nats.dispose();
  }
}

/** A publish whose acknowledgement never comes: the write waits ackWaitMs (200), not the timeout (1500). */
async function lateAcknowledgement(): Promise<void> {
  const scenario = 'a person event whose acknowledgement never comes (ackWaitMs 200, timeoutMs 1500)';
  progress(`${scenario} …`);
  const nats = await startNatsServer();
  const nc = await connect({ servers: nats.url });
  try {
    nc.subscribe('silent.persons.events');
    await nc.flush();
    const events = createPersonEvents({
      nc,
      subject: 'silent.persons.events',
      stream: PERSON_EVENTS_STREAM,
      logger: pino(new Writable({ write: (_chunk, _encoding, done) => done() })),
      timeoutMs: 1500,
      ackWaitMs: 200,
    });
    const waits: number[] = [];
    for (let i = 0; i < 10; i++) {
      const started = performance.now();
      await events.publish({ type: 'deleted', id: `luke-${i}` });
      waits.push(performance.now() - started);
    }
    record({
      scenario,
      figure: 'the write waited (largest of 10)',
      value: Math.max(...waits),
      bound: 1000,
      note: `median ${round(percentile(waits, 50))}`,
    });
    // The timeouts that count the events failed come 1.5 s after each publish: let them, before NATS goes.
    for (let waited = 0; waited < 30_000 && events.failures() < waits.length; waited += 100) await sleep(100);
  } finally {
    await nc.close();
    await nats.dispose();
  }
}

async function main(): Promise<void> {
  killChildrenOnExit(() => undefined);
  const startedAt = performance.now();
  progress(`bench:failover on ${loadavg()[0].toFixed(2)} load average`);
  // A scenario that fails is reported and the others still run; the exit code is then 1.
  const failures: string[] = [];
  for (const [name, scenario] of [
    ['events', lateAcknowledgement],
    ['replicas', replicaRestarts],
    ['faults', faultScenarios],
  ] as const) {
    if (name !== 'faults' && !runs(name)) continue;
    await scenario().catch((err: unknown) => {
      failures.push(`${name}: ${err instanceof Error ? err.message.slice(0, 500) : String(err)}`);
    });
  }
  const lines = rows.map((row) => {
    const verdict = row.bound === undefined ? '' : row.value <= row.bound ? '  PASS' : '  OVER ITS BOUND';
    const bound = row.bound === undefined ? '' : ` (bound ${round(row.bound)})`;
    return `${row.scenario}\n  ${row.figure}: ${round(row.value)}${bound}${verdict}${row.note ? `\n  ${row.note}` : ''}`;
  });
  const over = rows.filter((row) => row.bound !== undefined && row.value > row.bound).length;
  process.stdout.write(
    `bench:failover (${((performance.now() - startedAt) / 1000).toFixed(0)} s, load average now ${loadavg()[0].toFixed(2)})\n` +
      `${lines.join('\n')}\n` +
      `verdict: ${over === 0 ? 'PASS' : `${over} figure(s) OVER ITS BOUND`}\n` +
      failures.map((failure) => `could not measure ${failure}\n`).join(''),
  );
  if (failures.length > 0) process.exitCode = 1;
}

main().then(
  () => process.exit(process.exitCode ?? 0),
  (err: unknown) => {
    process.stderr.write(`bench:failover failed: ${err instanceof Error ? err.stack : String(err)}\n`);
    process.exit(1);
  },
);
