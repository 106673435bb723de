import { connect, type NatsConnection } from 'nats';
import { waitFor, type TestNatsCluster, type TestNatsServer } from '@restbus/infra/testing';
import {
  countLoad,
  expectRideThrough,
  findLostWrites,
  printCounts,
  RIDE_THROUGH_TIMEOUT_MS,
  startMixedLoad,
  usePersonStack,
  type LoadCounts,
  type MixedLoad,
  type PersonStack,
} from './testing/mixed-load';

// Issue 33, item 3: faults beyond kills, each under the mixed load of the leader-kill test (8 clients, half of their
// calls PUTs; two person-service replicas and the gateway, given every node), with the counts it prints. The
// cluster's routes and client ports go through fault proxies (startNatsCluster's `faults`): a node is cut off from
// its peers, or from its clients, or its links slowed down, without root and without a TCP error, as a network
// does. The nodes ping quiet routes and clients every second and drop them after two unanswered pings, as
// infra/nats/nats-cluster.conf sets for the cluster stack: a cut that sends no error is noticed only that way.
//
// Issue 45: the tests assert outcomes (every call answered, none failed other than 503 with Retry-After, no
// acknowledged write lost) and read no clock: the load before and after a fault is counted in calls, and the calls
// are judged by the fault's phase when they were sent. How long the calls waited through a failover (p99 against the
// election and 1 s) is `npm run bench:failover`'s figure. One cluster and one person stack serve the whole file:
// every test heals its fault, and the next one starts once every replica of the persons bucket is current again.
const PING_INTERVAL = '1s';
const PING_MAX = 2;
// The load runs this many calls before a fault and after it is healed.
const CALLS_BEFORE = 200;
const CALLS_AFTER = 200;
// The gateway's timeout here: RIDE_THROUGH_TIMEOUT_MS, since the cut-leader tests assert that every call succeeds
// through the election, which took more than the 12 s of docker-compose.cluster.yml on a machine kept busy by a CPU
// hog (7 writes sent into the cut answered 503).
// A long partition goes on, after the peers have elected another leader and every program on the cut node has left
// it, until this many calls sent after that were answered, every one of them while the cut lasts.
const CALLS_WHILE_CUT = 200;
const SLOW_MS = 10_000;
// Waits for events (an election, a client's move, a catch-up) that take seconds: far longer, so a loaded machine
// only waits.
const EVENT_DEADLINE_MS = 300_000;
const TEST_DEADLINE_MS = 900_000;

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

const under = usePersonStack(
  { faults: true, pingInterval: PING_INTERVAL, pingMax: PING_MAX },
  { gatewayTimeoutMs: RIDE_THROUGH_TIMEOUT_MS },
);

/**
 * Until every replica of the persons bucket's stream is current: the fault before has healed. Until the cluster has
 * a meta leader again, JetStream's API answers 503: asked again.
 */
async function waitUntilCaughtUp(cluster: TestNatsCluster): Promise<void> {
  const nc = await connect({ servers: cluster.nodes.map((node) => node.url) });
  try {
    await waitFor(
      async () => {
        const info = await (await nc.jetstreamManager({ timeout: 2000 })).streams.info('KV_persons');
        const replicas = info.cluster?.replicas ?? [];
        return !!info.cluster?.leader && replicas.length === 2 && replicas.every((replica) => replica.current);
      },
      { what: 'every replica of KV_persons current', timeoutMs: EVENT_DEADLINE_MS, everyMs: 200 },
    );
  } finally {
    await nc.close();
  }
}

beforeEach(async () => {
  under.cluster.faults?.heal();
  await waitUntilCaughtUp(under.cluster);
}, EVENT_DEADLINE_MS * 2);

/** The node a peer of `old` names leader of the stream, once one other than `old` is. */
async function newLeaderOf(cluster: TestNatsCluster, stream: string, old: TestNatsServer): Promise<TestNatsServer> {
  const peers = cluster.nodes.filter((node) => node !== old);
  let elected: TestNatsServer | undefined;
  const namedByAPeer = async (): Promise<boolean> => {
    for (const node of peers) {
      let nc: NatsConnection | undefined;
      try {
        nc = await connect({ servers: node.url, timeout: 1000 });
        const info = await (await nc.jetstreamManager({ timeout: 1000 })).streams.info(stream);
        elected = cluster.nodes.find((_, i) => `n${i + 1}` === info.cluster?.leader);
        if (elected && elected !== old) return true;
      } catch {
        // no meta leader yet on this side, or no stream leader: ask again
      } finally {
        await nc?.close();
      }
    }
    return false;
  };
  await waitFor(namedByAPeer, {
    what: `the peers of ${old.url} naming another leader of ${stream}`,
    timeoutMs: EVENT_DEADLINE_MS,
    everyMs: 100,
  });
  return elected as TestNatsServer;
}

/** Heals, lets the load run CALLS_AFTER calls more, and counts what happened. */
async function healAndCount(
  cluster: TestNatsCluster,
  load: MixedLoad,
  base: string,
  label: string,
  note: string,
): Promise<LoadCounts> {
  cluster.faults?.heal();
  load.enter('healed');
  await load.stopAfterCalls(CALLS_AFTER);
  const lost = await findLostWrites(base, load.written);
  return countLoad(label, load, lost, 0, note);
}

/** Resolves once every call of the load from its `first` to `first + count` (its turns) has been answered. */
async function answeredAll(load: MixedLoad, first: number, count: number): Promise<void> {
  const answered = (): number => load.outcomes.filter((o) => o.seq >= first && o.seq < first + count).length;
  await waitFor(() => answered() === count, {
    what: `the ${count} calls sent from turn ${first} on all answered (${answered()} so far)`,
    timeoutMs: EVENT_DEADLINE_MS,
    everyMs: 100,
  });
}

/**
 * Cuts the node leading KV_persons off from its peers (its clients still reach it) under the mixed load, until its
 * peers have elected another leader; with `long`, on until every program that was on the node has left it and the
 * CALLS_WHILE_CUT calls sent after that are answered. Heals, and asserts what the leader-kill test asserts: every
 * call answered with success, nothing lost.
 */
async function cutLeaderOff(prefix: string, long: boolean): Promise<void> {
  const { cluster, stack } = under;
  const faults = cluster.faults as NonNullable<TestNatsCluster['faults']>;
  const load = startMixedLoad(stack.base, prefix);
  await load.answered(CALLS_BEFORE);
  const leader = await cluster.leaderOf('KV_persons');
  const onIt = PROGRAMS.filter((program) => nodeOfProgram(cluster, stack, program) === leader);
  load.enter('cut');
  faults.setRoutes(leader, { kind: 'blackhole' });
  const elected = await newLeaderOf(cluster, 'KV_persons', leader);
  load.enter('elected');
  let note = `node ${leader.url} led KV_persons, its routes blackholed after ${CALLS_BEFORE} calls until its peers named ${elected.url} leader`;
  if (long) {
    // What is sent into the cut node is not answered from there before the heal: the programs on it must find its
    // routes gone and move, and the calls sent after that must be answered by the other nodes while the cut lasts.
    await waitFor(() => onIt.every((program) => nodeOfProgram(cluster, stack, program) !== leader), {
      what: `${onIt.join(', ')} leaving ${leader.url}`,
      timeoutMs: EVENT_DEADLINE_MS,
      everyMs: 100,
    });
    load.enter('moved');
    await answeredAll(load, load.sent(), CALLS_WHILE_CUT);
    note += `, ${onIt.length > 0 ? onIt.join(', ') : 'no program'} had left it and ${CALLS_WHILE_CUT} calls sent after that were answered`;
  }
  const counts = await healAndCount(cluster, load, stack.base, 'leader cut off from its peers', `${note}.`);
  printCounts(counts, stack);
  expectRideThrough(counts);
  // The load went on after the cut healed.
  expect(counts.sentIn.get('healed') ?? 0).toBeGreaterThan(0);
}

describe('a node leading the persons bucket cut off from its peers while clients still reach it', () => {
  it(
    'answers every call with success and keeps every acknowledged write',
    async () => {
      await cutLeaderOff('cut', false);
    },
    TEST_DEADLINE_MS,
  );
});

// Needs nats-server 2.10 or later (every test runs 2.15): 2.9.10 never pings a route it keeps sending on (nats-server#4014), so the cut leader never
// finds its routes dead, and the programs on it never leave it.
describe('a node leading the persons bucket cut off from its peers until its clients have left it', () => {
  it(
    'answers every call with success, the calls sent after the programs left it before the cut heals, and keeps every acknowledged write',
    async () => {
      await cutLeaderOff('long-cut', true);
    },
    TEST_DEADLINE_MS,
  );
});

/** The node a program's link is on now: its last "connected/moved/reconnected … at" line names the node's proxy. */
function nodeOfProgram(cluster: TestNatsCluster, stack: PersonStack, program: string): TestNatsServer {
  const line = stack
    .linkEvents()
    .filter((event) => event.includes(` ${program}: `) && / at 127\.0\.0\.1:\d+/.test(event))
    .pop();
  const port = Number(/ at 127\.0\.0\.1:(\d+)/.exec(line ?? '')?.[1]);
  const node = cluster.nodes.find((candidate) => cluster.faults?.client(candidate).port === port);
  if (!node) throw new Error(`${program} is on no node: ${stack.linkEvents().join('; ')}`);
  return node;
}

const PROGRAMS = ['gateway', 'person-service-1', 'person-service-2'];

describe("a node its peers reach but its clients do not (the gateway's node)", () => {
  it(
    'loses no acknowledged write, fails a call only with 503 and Retry-After, and its clients leave it',
    async () => {
      const { cluster, stack } = under;
      const faults = cluster.faults as NonNullable<TestNatsCluster['faults']>;
      const load = startMixedLoad(stack.base, 'unreachable');
      await load.answered(CALLS_BEFORE);
      const node = nodeOfProgram(cluster, stack, 'gateway');
      const onIt = PROGRAMS.filter((program) => nodeOfProgram(cluster, stack, program) === node);
      load.enter('cut');
      faults.client(node).setMode({ kind: 'blackhole' });
      // The cut lasts until every program that was on the node has left it (each finds its server stale by its
      // pings), and the load has gone on through the other nodes for a while.
      await waitFor(() => onIt.every((program) => nodeOfProgram(cluster, stack, program) !== node), {
        what: `${onIt.join(', ')} leaving ${node.url}`,
        timeoutMs: EVENT_DEADLINE_MS,
        everyMs: 100,
      });
      load.enter('moved');
      await load.answered(CALLS_AFTER);
      const counts = await healAndCount(
        cluster,
        load,
        stack.base,
        'client port cut off',
        `the client port of ${node.url} (the node of ${onIt.join(', ')}) blackholed after ${CALLS_BEFORE} calls ` +
          `until they had left it and ${CALLS_AFTER} calls more were answered.`,
      );
      printCounts(counts, stack);
      expect(counts.unhelpful.map((o) => `${o.kind} ${o.status} (sent in ${o.sentIn})`)).toEqual([]);
      expect(counts.lost).toEqual([]);
      expect(onIt).toContain('gateway');
    },
    TEST_DEADLINE_MS,
  );
});

describe('a slow link: 200 ms each way on every route of the node leading the persons bucket', () => {
  it(
    'loses no acknowledged write and fails a call only with 503 and Retry-After',
    async () => {
      const { cluster, stack } = under;
      const faults = cluster.faults as NonNullable<TestNatsCluster['faults']>;
      const load = startMixedLoad(stack.base, 'slow');
      await load.answered(CALLS_BEFORE);
      const leader = await cluster.leaderOf('KV_persons');
      load.enter('slow');
      faults.setRoutes(leader, { kind: 'delay', delayMs: 200 });
      await sleep(SLOW_MS);
      const counts = await healAndCount(
        cluster,
        load,
        stack.base,
        'slow routes',
        `the routes of ${leader.url} (leading KV_persons) delayed 200 ms each way after ${CALLS_BEFORE} calls for ` +
          `${SLOW_MS} ms.`,
      );
      printCounts(counts);
      expect(counts.unhelpful.map((o) => `${o.kind} ${o.status} (sent in ${o.sentIn})`)).toEqual([]);
      expect(counts.lost).toEqual([]);
      expect(counts.sentIn.get('slow') ?? 0).toBeGreaterThan(0);
    },
    TEST_DEADLINE_MS,
  );
});
