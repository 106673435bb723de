import { connect, DebugEvents, Events, type NatsConnection } from 'nats';
import { startNatsCluster, startNatsServer, waitFor, type TestNatsCluster, type TestNatsServer } from '../testing';
import { captureLogLines, type CapturedLog } from './__tests__/capture-log-lines';
import { createNatsLink, type NatsLink } from './create-nats-link';
import { startResponder, type Responder, type Route } from './start-responder';
import { createRequestMessage } from '../testing';
import { encodeMessage } from '../wire/codec';
import { createRequestHeaders } from '../wire/headers';
import { openKvCollection } from '../store/kv-collection';

const WORKERS = 4;
// Enough calls at once that some are always on the wire, in both directions, when a connection moves.
const CALLERS = 16;

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

// What happened before what: every event the tests order takes the next number (an order, not a time).
let events = 0;

/** The status events of a connection, each with its place in the order of events. */
function recordStatus(nc: NatsConnection): Array<{ type: string; at: number }> {
  const statuses: Array<{ type: string; at: number }> = [];
  void (async () => {
    for await (const status of nc.status()) statuses.push({ type: status.type, at: ++events });
  })();
  return statuses;
}

/** Requests through the link from several workers at once until stopped; each one's start (in the order of events) and outcome. */
function startRequestLoop(nc: NatsConnection) {
  const requests: Array<{ startedAt: number; ok: boolean; code?: string }> = [];
  let stopping = false;
  let onSuccess = (): void => undefined;
  const worker = async (): Promise<void> => {
    // A closed connection rejects at once, and a loop of microtasks alone would starve the timers.
    while (!stopping && !nc.isClosed()) {
      const startedAt = ++events;
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
    // Make before break: the new connection was made while the old one still served, so the link was never
    // disconnected, and no request failed, not even one on its way at the moment of the move.
    expect(statuses.map((status) => status.type)).not.toContain(Events.Disconnect);
    expect(link.isConnected()).toBe(true);
    // One line for the whole move: no "lost NATS" warning.
    expect(log.lines.filter((line) => line.component === 'nats').map((line) => line.msg)).toEqual([
      expect.stringMatching(/^connected to NATS/),
      moved.msg,
    ]);
    // No request timed out, not even one on its way at the moment of the move. The lame-duck server itself may
    // answer 503 (no responders) for a few ms before it tells its clients, while it shuts its JetStream down: that
    // is not the link's doing, and the gateway sends such a call again (resend-policy.ts).
    const toldAt = statuses.find((status) => status.type === Events.LDM)!.at;
    const failed = load.requests.filter((request) => !request.ok);
    expect(failed.filter((request) => request.code !== '503' || request.startedAt > toldAt)).toEqual([]);

    // It stays where it went when the lame-duck node is gone (with no client left, the harness stops it).
    await leaving.enterLameDuck();
    expect(nodeOf(cluster.nodes, nc)).toBe(arrived);
    expect((await nc.request('echo', 'still', { timeout: 2000 })).string()).toBe('still');
    expect(statuses.filter((status) => status.type === Events.Disconnect)).toHaveLength(0);
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

/** Calls the echo route through `nc` from several workers at once until stopped; each call's outcome. */
function startCallLoop(nc: () => NatsConnection, subject: string) {
  const calls: Array<{ ok: boolean; why?: string; on?: string; at?: number }> = [];
  let stopping = false;
  const payload = encodeMessage(createRequestMessage({ uri: '/echo' }));
  const worker = async (): Promise<void> => {
    while (!stopping) {
      try {
        // A deadline that only a lost call trips, not a slow one on a loaded machine.
        const reply = await nc().request(subject, payload, { timeout: 20_000, headers: createRequestHeaders() });
        const status = reply.headers?.get('Nats-Service-Error-Code');
        calls.push(status ? { ok: false, why: status } : { ok: true });
      } catch (err) {
        calls.push({
          ok: false,
          why: String((err as { code?: string }).code ?? err),
          on: nc().getServer(),
          at: ++events,
        });
        // A failure that comes at once must not spin the loop.
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    }
  };
  const workers = Array.from({ length: CALLERS }, () => worker());
  return {
    calls,
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all(workers);
    },
  };
}

const echoRoute: Route = {
  method: 'get',
  uri: '/echo',
  subject: 'lame-duck.echo',
  // A little time in the handler, so that some requests are always being handled when the move comes.
  handle: async () => {
    await new Promise((resolve) => setTimeout(resolve, 3));
    return { status: 200, body: { echoed: true } };
  },
};

describe('a service whose server enters lame duck mode', () => {
  let cluster: TestNatsCluster;
  let responder: Responder | undefined;
  let caller: NatsLink | undefined;
  let loop: ReturnType<typeof startCallLoop> | undefined;

  afterEach(async () => {
    await loop?.stop();
    loop = undefined;
    await responder?.stop();
    responder = undefined;
    await caller?.drain();
    caller = undefined;
    await link?.drain();
    link = undefined;
    await cluster?.dispose();
  });

  it('answers every request of a steady load while it moves, subscribed on the new node before the old connection closes', async () => {
    cluster = await startNatsCluster();
    link = createNatsLink({ servers: cluster.urls, name: 'lame-duck-service', logger: log.logger });
    const nc = await link.ready();
    responder = await startResponder({
      nc,
      logger: log.logger,
      name: 'lame-duck-service',
      version: '1.0.0',
      topicPrefix: 'easer',
      routes: [echoRoute],
    });
    const leaving = nodeOf(cluster.nodes, nc);
    // The caller is on a node that stays, so that only the service moves.
    const callerConnection = await connect({ servers: cluster.nodes.find((node) => node !== leaving)!.url });
    try {
      loop = startCallLoop(() => callerConnection, echoRoute.subject!);
      await waitUntilCalls(loop.calls, 200);

      leaving.signalLameDuck();
      await log.waitForLine((line) => /^moved to NATS/.test(line.msg));
      const movedAt = loop.calls.length;
      // The lame-duck node exits only once the service's old connection is closed.
      await leaving.enterLameDuck();
      await waitUntilCalls(loop.calls, movedAt + 200);
      await loop.stop();

      expect(nodeOf(cluster.nodes, nc)).not.toBe(leaving);
      expect(loop.calls.filter((call) => !call.ok)).toEqual([]);
      // Its services API identity moved with it: a health check that pings this very instance still finds it.
      const ping = await callerConnection.request(`$SRV.PING.lame-duck-service.${responder.id}`, undefined, {
        timeout: 2000,
      });
      expect(ping.json<{ id: string }>().id).toBe(responder.id);
    } finally {
      await callerConnection.close();
    }
  });

  it('answers every request while every node in turn enters lame duck mode and starts again, round after round', async () => {
    cluster = await startNatsCluster();
    link = createNatsLink({ servers: cluster.urls, name: 'rolling-service', logger: log.logger });
    responder = await startResponder({
      nc: await link.ready(),
      logger: log.logger,
      name: 'rolling-service',
      version: '1.0.0',
      topicPrefix: 'easer',
      routes: [echoRoute],
    });
    // The caller is a link too: it moves as the service does.
    caller = createNatsLink({ servers: cluster.urls, name: 'rolling-caller', logger: log.logger });
    const callerConnection = await caller.ready();
    loop = startCallLoop(() => callerConnection, echoRoute.subject!);
    await waitUntilCalls(loop.calls, 100);

    for (let round = 0; round < ROUNDS; round++) {
      for (const node of cluster.nodes) {
        await node.enterLameDuck();
        await node.start();
        await waitUntilCalls(loop.calls, loop.calls.length + 50);
      }
    }
    await loop.stop();

    const failed = loop.calls.filter((call) => !call.ok);
    expect({ calls: loop.calls.length, failed }).toEqual({ calls: loop.calls.length, failed: [] });
  });
});

const ROUNDS = 3;

describe('a KV collection whose server enters lame duck mode', () => {
  let cluster: TestNatsCluster;
  let outside: NatsConnection | undefined;

  afterEach(async () => {
    await link?.drain();
    link = undefined;
    await outside?.close();
    await cluster?.dispose();
  });

  it('answers every write and read while it moves, and its copy follows the bucket from the new node', async () => {
    cluster = await startNatsCluster();
    outside = await connect({ servers: cluster.urls });
    // Another replica of the service: it announces its writes, which the moving one hears on its new connection.
    const elsewhere = await openKvCollection<{ n: number }>(outside, 'moving', { reads: 'announced' });
    // The bucket's leader stays up: this is about the move, not about an election (see kv-collection-faults). So
    // does the other replica's node, whose plain connection would stay until the server closed it.
    const leader = await cluster.leaderOf('KV_moving');
    const leaving = cluster.nodes.find((node) => node !== leader && node !== nodeOf(cluster.nodes, outside!))!;
    link = createNatsLink({ servers: leaving.url, name: 'kv-lame-duck', logger: log.logger });
    const records = await openKvCollection<{ n: number }>(await link.ready(), 'moving', {
      logger: log.logger,
      reads: 'announced',
    });
    const failures: unknown[] = [];
    let done = 0;
    let stopping = false;
    let next = 0;
    const worker = async (): Promise<void> => {
      while (!stopping) {
        const n = next++;
        try {
          await records.create(`r${n}`, { n });
          const read = await records.get(`r${n}`);
          // A read may be marked stale while the cluster's JetStream settles after the node left (its answer is
          // still the copy's, which has the write): that is the store's to shorten, not the move's.
          if (read.value?.n !== n) failures.push({ n, read });
          done++;
        } catch (err) {
          failures.push({ n, err: String(err) });
        }
      }
    };
    const workers = Array.from({ length: WORKERS }, () => worker());
    try {
      while (done < 50) await new Promise((resolve) => setTimeout(resolve, 10));

      leaving.signalLameDuck();
      await log.waitForLine((line) => /^moved to NATS/.test(line.msg));
      await leaving.enterLameDuck();
      const after = done;
      while (done < after + 50) await new Promise((resolve) => setTimeout(resolve, 10));
    } finally {
      stopping = true;
      await Promise.all(workers);
    }

    expect(failures).toEqual([]);
    // Its copy was started afresh on the new connection, not left to stall on the old one until a read saw it (a
    // restart a read asked for just before the move, on the old connection, does not count: a loaded machine saw
    // one take the move's place).
    expect(
      log.lines.filter(
        (line) =>
          line.msg.startsWith('started a fresh copy of moving (') &&
          line.msg.includes('the connection moved to another server'),
      ),
    ).toHaveLength(1);
    // It follows: a write made by another replica after the old connection closed is in its next read.
    await elsewhere.create('late', { n: -1 });
    // (Within one process the read could overtake the announcement, which crosses the cluster: a client's next
    // call, through a gateway, cannot.)
    await new Promise((resolve) => setTimeout(resolve, 100));
    await expect(records.get('late')).resolves.toEqual({ value: { n: -1 }, stale: false });
    await records.close();
    await elsewhere.close();
  });
});

async function waitUntilCalls(calls: readonly unknown[], count: number): Promise<void> {
  await waitFor(() => calls.length >= count, { what: `call number ${count}`, timeoutMs: 25_000, everyMs: 10 });
}
