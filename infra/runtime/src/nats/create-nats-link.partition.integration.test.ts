import { connect, type NatsConnection } from 'nats';
import { startNatsCluster, waitFor, type TestNatsCluster, type TestNatsServer } from '../testing';
import { captureLogLines, type CapturedLog } from './__tests__/capture-log-lines';
import { createNatsLink, type NatsLink } from './create-nats-link';
import { onConnectionMove } from './create-moving-connection';

// A node cut off from its peers (its routes blackholed) still takes its clients' messages and delivers them to no
// one else: the link leaves it for a node that still sees the cluster once the node tells its clients it lost its
// peers (the INFO it sends when it drops their routes, after ping_interval × ping_max without an answer).
//
// The nodes ping their routes every second and give up after two unanswered pings: a node finds its routes dead
// about 3 s after the cut, and the link (pinging its own server every second, two unanswered pings) leaves a
// server that stopped answering about as soon. Every deadline below is ten times that or more, so that a loaded
// machine only makes a test slower, never fails it; what the tests assert is what happened, not how fast.
const PING_INTERVAL = '1s';
const PING_MAX = 2;
const DETECTED_MS = 60_000;
const TEST_MS = 150_000;

let cluster: TestNatsCluster;
let link: NatsLink | undefined;
let log: CapturedLog;

beforeAll(async () => {
  // Without JetStream: its raft groups send on the routes all the time, and nats-server 2.9.10 (Debian's) does not
  // ping a route it sends on (nats-server#4014, fixed in later releases), so a node with a raft group to lead never
  // finds its cut routes dead. What the link does once its node tells it needs a node that does.
  cluster = await startNatsCluster({ faults: true, pingInterval: PING_INTERVAL, pingMax: PING_MAX, jetstream: false });
});

afterAll(async () => {
  await cluster?.dispose();
});

beforeEach(async () => {
  log = captureLogLines();
  // A cluster started without JetStream is handed over before its routes are up, and a node cut off in the test
  // before rejoins once healed: each test starts from a whole cluster, every node seeing every other. (A link that
  // never saw the whole cluster cannot tell a cut-off node from a small cluster: it stays, and rightly.)
  await wholeCluster();
});

afterEach(async () => {
  await link?.drain();
  link = undefined;
  cluster.faults?.heal();
});

/** How many servers a connection's server names (itself and the peers it has routes to). */
const viewOf = (nc: NatsConnection): number => nc.info?.connect_urls?.length ?? 0;

/** Resolves once every node names every node, itself included. */
async function wholeCluster(): Promise<void> {
  for (const node of cluster.nodes) {
    const nc = await connect({ servers: node.url });
    try {
      await waitFor(() => viewOf(nc) === cluster.nodes.length, {
        what: `${node.url} seeing the whole cluster`,
        timeoutMs: DETECTED_MS,
      });
    } finally {
      await nc.close();
    }
  }
}

/** The node a connection is on: it dials the nodes' client proxies. */
function nodeOf(nc: NatsConnection): TestNatsServer {
  const node = cluster.nodes.find((candidate) => nc.getServer().endsWith(`:${cluster.faults?.client(candidate).port}`));
  if (!node) throw new Error(`${nc.getServer()} is none of the nodes`);
  return node;
}

/** A link on the cluster, once its server has told it of the whole cluster (the size it judges a cut-off by). */
async function linkOnWholeCluster(): Promise<NatsConnection> {
  link = createNatsLink({ servers: cluster.urls.split(','), name: 'partition-test', logger: log.logger });
  const nc = await link.ready();
  await waitFor(() => viewOf(nc) === cluster.nodes.length, { what: 'a whole cluster', timeoutMs: DETECTED_MS });
  return nc;
}

describe('createNatsLink on a cluster whose node is cut off from its peers', () => {
  it(
    'moves to a node that still sees the cluster, keeping its subscriptions, and tells the move listeners why',
    async () => {
      const nc = await linkOnWholeCluster();
      const received: string[] = [];
      nc.subscribe('partition.echo', { callback: (_err, msg) => received.push(msg.string()) });
      await nc.flush();
      const reasons: string[] = [];
      onConnectionMove(nc, (reason) => {
        reasons.push(reason);
      });
      const cutOff = nodeOf(nc);
      cluster.faults?.setRoutes(cutOff, { kind: 'blackhole' });

      await waitFor(() => nodeOf(nc) !== cutOff, {
        what: 'the move away from the cut-off node',
        timeoutMs: DETECTED_MS,
      });
      expect(reasons).toEqual(['cut-off']);
      // The line comes once the new server has the subscriptions (a flush after the move).
      await log.waitForLine((line) => line.msg.includes('lost its routes'), DETECTED_MS);
      expect(link?.isConnected()).toBe(true);

      // A message published on another node reaches the subscription made before the move.
      const other = cluster.nodes.find((node) => node !== cutOff) as TestNatsServer;
      const publisher = await connect({ servers: other.url });
      try {
        await waitFor(
          () => {
            publisher.publish('partition.echo', 'after the move');
            return received.includes('after the move');
          },
          { what: 'delivery after the move', timeoutMs: DETECTED_MS, everyMs: 50 },
        );
      } finally {
        await publisher.close();
      }
    },
    TEST_MS,
  );

  it(
    'stays on its node when a single peer is cut off from it',
    async () => {
      const nc = await linkOnWholeCluster();
      const reasons: string[] = [];
      onConnectionMove(nc, (reason) => {
        reasons.push(reason);
      });
      const own = nodeOf(nc);
      const peer = cluster.nodes.find((node) => node !== own) as TestNatsServer;
      // The peer loses its routes: the link's node still has a majority of the cluster (itself and the third).
      cluster.faults?.setRoutes(peer, { kind: 'blackhole' });
      // The link hears of it as it would of a cut-off of its own node: the INFO that drops the peer.
      await waitFor(() => viewOf(nc) === cluster.nodes.length - 1, {
        what: "the link's node dropping the cut-off peer",
        timeoutMs: DETECTED_MS,
      });
      // Whatever the link does about that INFO, it has done by the time a connection as the link would make to
      // move is made and answers (and a while after, for a loaded machine): it made none.
      const probe = await connect({ servers: cluster.nodes.find((node) => node !== own && node !== peer)?.url });
      await probe.flush();
      await probe.close();
      await new Promise((resolve) => setTimeout(resolve, 1000));
      expect(nodeOf(nc)).toBe(own);
      expect(reasons).toEqual([]);
      expect(log.lines.filter((line) => line.component === 'nats').map((line) => line.msg)).toEqual([
        expect.stringMatching(/^connected to NATS/),
      ]);
    },
    TEST_MS,
  );

  it(
    'reconnects to another node when its own node stops answering it, long before nats.js’ default ping timeout (2 min × 2)',
    async () => {
      const nc = await linkOnWholeCluster();
      const own = nodeOf(nc);
      cluster.faults?.client(own).setMode({ kind: 'blackhole' });
      // A link left with nats.js' default pings would still be on its node after four minutes: this deadline
      // fails it, while the link's own pings (one a second, two unanswered) leave within seconds.
      await waitFor(() => nodeOf(nc) !== own && (link?.isConnected() ?? false), {
        what: 'the reconnect to another node',
        timeoutMs: DETECTED_MS,
      });
    },
    TEST_MS,
  );
});
