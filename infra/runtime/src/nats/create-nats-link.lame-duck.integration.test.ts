import { connect, DebugEvents, Events, type NatsConnection } from 'nats';
import { startNatsCluster, startNatsServer, type TestNatsCluster, type TestNatsServer } from '../testing';
import { captureLogLines, type CapturedLog } from './__tests__/capture-log-lines';
import { createNatsLink, type NatsLink } from './create-nats-link';

const WORKERS = 4;

let link: NatsLink | undefined;
let log: CapturedLog;

beforeEach(() => {
  log = captureLogLines();
});

afterEach(async () => {
  await link?.drain();
  link = undefined;
});

/** The node a connection is on: nats.js names it host:port. */
function nodeOf(nodes: readonly TestNatsServer[], nc: NatsConnection): TestNatsServer {
  const node = nodes.find((candidate) => nc.getServer().endsWith(`:${candidate.port}`));
  if (!node) throw new Error(`${nc.getServer()} is none of the nodes`);
  return node;
}

/** The status events of a connection, with the time each came. */
function recordStatus(nc: NatsConnection): Array<{ type: string; at: number }> {
  const statuses: Array<{ type: string; at: number }> = [];
  void (async () => {
    for await (const status of nc.status()) statuses.push({ type: status.type, at: Date.now() });
  })();
  return statuses;
}

/** Requests through the link from several workers at once until stopped; each one's start and outcome. */
function startRequestLoop(nc: NatsConnection) {
  const requests: Array<{ startedAt: number; ok: boolean; code?: string }> = [];
  let stopping = false;
  let onSuccess = (): void => undefined;
  const worker = async (): Promise<void> => {
    // A closed connection rejects at once, and a loop of microtasks alone would starve the timers.
    while (!stopping && !nc.isClosed()) {
      const startedAt = Date.now();
      try {
        await nc.request('echo', 'ping', { timeout: 1000 });
        requests.push({ startedAt, ok: true });
        onSuccess();
      } catch (err) {
        requests.push({ startedAt, ok: false, code: (err as { code?: string }).code });
      }
    }
  };
  const workers = Array.from({ length: WORKERS }, () => worker());
  return {
    requests,
    /** Resolves once `count` more requests have succeeded. */
    succeeded(count: number): Promise<void> {
      let left = count;
      return new Promise((resolve) => {
        onSuccess = () => {
          if (--left === 0) resolve();
        };
      });
    },
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all(workers);
    },
  };
}

describe('a link whose server enters lame duck mode in a cluster', () => {
  let cluster: TestNatsCluster;
  let echoer: NatsConnection | undefined;
  let load: ReturnType<typeof startRequestLoop> | undefined;

  beforeEach(async () => {
    cluster = await startNatsCluster();
  });

  afterEach(async () => {
    await load?.stop();
    load = undefined;
    await link?.drain();
    await echoer?.close();
    await cluster?.dispose();
  });

  it.each<[string, (cluster: TestNatsCluster) => string]>([
    ['another server of the -n list', (c) => c.urls],
    ['a server the cluster gossips when -n names only the lame-duck one', (c) => c.nodes[0].url],
  ])('moves at once to %s, before the lame-duck server closes it', async (_what, servers) => {
    link = createNatsLink({ servers: servers(cluster), name: 'lame-duck-test', logger: log.logger });
    const nc = await link.ready();
    const statuses = recordStatus(nc);
    const leaving = nodeOf(cluster.nodes, nc);
    echoer = await connect({ servers: cluster.nodes.find((node) => node !== leaving)!.url });
    echoer.subscribe('echo', { callback: (_err, msg) => msg.respond(msg.data) });
    await echoer.flush();
    load = startRequestLoop(nc);
    await load.succeeded(100);

    leaving.signalLameDuck();
    const moved = await log.waitForLine((line) => /^moved to NATS/.test(line.msg));
    await load.succeeded(200);
    await load.stop();

    const arrived = nodeOf(cluster.nodes, nc);
    expect(arrived).not.toBe(leaving);
    expect(moved).toMatchObject({
      level: 30,
      msg: `moved to NATS at ${nc.getServer()}: 127.0.0.1:${leaving.port} is entering lame duck mode`,
    });
    // The link left on its own (a client-initiated reconnect, then the disconnect), not cut off by the server.
    const types = statuses.map((status) => status.type);
    expect(types.indexOf(DebugEvents.ClientInitiatedReconnect)).toBeGreaterThanOrEqual(0);
    expect(types.indexOf(DebugEvents.ClientInitiatedReconnect)).toBeLessThan(types.indexOf(Events.Disconnect));
    // One line for the whole move: no "lost NATS" warning.
    expect(log.lines.filter((line) => line.component === 'nats').map((line) => line.msg)).toEqual([
      expect.stringMatching(/^connected to NATS/),
      moved.msg,
    ]);
    // Replies on their way at the moment of the move are lost (nats.js keeps none across a reconnect): at most
    // one per worker, each a timeout. (The lame-duck server itself may answer 503 no responders for a few ms
    // before it tells its clients, while it shuts its JetStream down; that is not the link's doing.)
    const arrivedAt = statuses.find((status) => status.type === Events.Reconnect)!.at;
    // At once: not after nats.js' reconnectTimeWait (1 s) on a server it connected to a moment ago.
    expect(arrivedAt - statuses.find((status) => status.type === Events.Disconnect)!.at).toBeLessThan(500);
    const failed = load.requests.filter((request) => !request.ok);
    expect(failed.filter((request) => request.code === 'TIMEOUT').length).toBeLessThanOrEqual(WORKERS);
    // Every request sent once the link is on the new server is answered.
    expect(failed.filter((request) => request.startedAt >= arrivedAt)).toEqual([]);

    // It stays where it went when the lame-duck node is gone: with no client left, it exits after its grace period.
    await leaving.enterLameDuck();
    expect(nodeOf(cluster.nodes, nc)).toBe(arrived);
    expect((await nc.request('echo', 'still', { timeout: 2000 })).string()).toBe('still');
    expect(statuses.filter((status) => status.type === Events.Disconnect)).toHaveLength(1);
  });
});

describe('a link to a lone server that enters lame duck mode', () => {
  let server: TestNatsServer;

  afterEach(async () => {
    await link?.drain();
    // A server in lame duck mode takes its time over SIGTERM; nothing of it is needed any more.
    await server?.kill();
    await server?.dispose();
  });

  it('stays connected until the server closes it, and says that it will', async () => {
    server = await startNatsServer();
    link = createNatsLink({ servers: server.url, name: 'lame-duck-test', logger: log.logger });
    const nc = await link.ready();
    const statuses = recordStatus(nc);
    server.signalLameDuck();
    const warning = await log.waitForLine((line) => line.level === 40);
    expect(warning.msg).toBe('the NATS server is entering lame duck mode and will close the connection soon');
    expect(statuses.map((status) => status.type)).not.toContain(DebugEvents.ClientInitiatedReconnect);
    expect(link.isConnected()).toBe(true);
    expect(nc.getServer()).toBe(`127.0.0.1:${server.port}`);
  });
});
