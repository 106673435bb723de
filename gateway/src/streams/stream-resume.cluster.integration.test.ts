import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type JetStreamClient, type NatsConnection } from 'nats';
import { startNatsCluster, type TestNatsCluster, type TestNatsServer } from '@restbus/infra/testing';
import { startGatewayProcess, type GatewayProcess } from './__tests__/gateway-process';
import { openSse, waitFor, type SseEvent } from './__tests__/sse-reader';

// Issue 32's resume proof: 10,000 events, 30 s offline at 10 events/s, a NATS node restarted meanwhile.
const TOTAL = 10_000;
const OFFLINE_MS = 30_000;
const OFFLINE_RATE = 10;
const OFFLINE_EVENTS = (OFFLINE_MS / 1000) * OFFLINE_RATE;
const BEFORE = (TOTAL - OFFLINE_EVENTS) / 2;

const API = {
  openapi: '3.0.3',
  info: { title: 'rooms', version: '1', description: 'the events of a room' },
  paths: {
    '/rooms/{room}/events': {
      get: {
        operationId: 'roomEvents',
        description: 'the events of one room, kept in JetStream',
        parameters: [{ name: 'room', in: 'path', required: true, schema: { type: 'string' } }],
        'x-restbus-stream': { subject: 'rooms.{room}.events', stream: 'ROOMS' },
        responses: {
          '200': {
            description: 'the events',
            content: {
              'text/event-stream': { itemSchema: { type: 'object', properties: { n: { type: 'integer' } } } },
            },
          },
          '403': { description: 'not yours' },
        },
      },
    },
  },
};

let dir: string;
let cluster: TestNatsCluster;
let gateway: GatewayProcess;
/** The node the gateway connected to: the one restarted. */
let gatewayNode: TestNatsServer;
let service: NatsConnection;
let publisher: NatsConnection;
let js: JetStreamClient;
const asked: string[] = [];

/** The service: room "secret" is not the caller's (403, after 300 ms); every other room is, with no snapshot. */
async function startService(servers: string[]): Promise<NatsConnection> {
  const nc = await connect({ servers, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  nc.subscribe('easer.>', {
    callback: (_err, msg) => {
      const { request } = JSON.parse(new TextDecoder().decode(msg.data)) as {
        request: { parameters: { uri: Record<string, string> } };
      };
      const room = request.parameters.uri.room;
      asked.push(room);
      if (room !== 'secret') {
        msg.respond(JSON.stringify({ status: 200 }));
        return;
      }
      // It takes its time to refuse, so that events are published on the room while the gateway waits.
      const refusal = JSON.stringify({ status: 403, body: { error: 'not yours', code: 'FORBIDDEN' } });
      setTimeout(() => msg.respond(refusal), 300);
    },
  });
  await nc.flush();
  return nc;
}

/** A JetStream publish acknowledged by the stream, retried (same message id: stored once) through a node's restart. */
async function publish(room: string, n: number): Promise<void> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    try {
      await js.publish(`rooms.${room}.events`, JSON.stringify({ n }), { msgID: `${room}-${n}`, timeout: 2000 });
      return;
    } catch (err) {
      if (Date.now() > deadline) throw err;
      await new Promise((done) => setTimeout(done, 200));
    }
  }
}

/** Publishes events `from`..`to - 1` as fast as acks come, 100 in flight (one connection keeps their order). */
async function publishFast(room: string, from: number, to: number): Promise<void> {
  for (let n = from; n < to; n += 100) {
    await Promise.all(Array.from({ length: Math.min(100, to - n) }, (_, i) => publish(room, n + i)));
  }
}

const sleep = (ms: number): Promise<void> => new Promise((done) => setTimeout(done, ms));

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-stream-cluster-'));
  await writeFile(join(dir, 'rooms.json'), JSON.stringify(API));
  cluster = await startNatsCluster();
  gateway = await startGatewayProcess({ api: join(dir, 'rooms.json'), natsUrls: cluster.urls });
  // /-/ready may say connected a moment before the log line that names the node is read.
  await waitFor(() => gateway.server() !== undefined, 'the gateway to name its NATS node').catch(() => undefined);
  gatewayNode = cluster.nodes.find((node) => gateway.server() === `127.0.0.1:${node.port}`)!;
  if (!gatewayNode) throw new Error(`cannot tell which node the gateway is on:\n${gateway.output()}`);
  // The service and the publisher stay off the restarted node: what is tested is the gateway's way through it.
  const others = cluster.nodes.filter((node) => node !== gatewayNode).map((node) => node.url);
  service = await startService(others);
  publisher = await connect({ servers: others, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
  const jsm = await publisher.jetstreamManager();
  await jsm.streams.add({ name: 'ROOMS', subjects: ['rooms.>'], num_replicas: 3 });
  js = publisher.jetstream();
}, 60_000);
afterAll(async () => {
  await gateway?.stop();
  await service?.close();
  await publisher?.close();
  await cluster?.dispose();
  await rm(dir, { recursive: true, force: true });
});

/** Gaps and duplicates in a client's ids, which must run 1, 2, 3 … `TOTAL`; and the payloads in that order. */
function countIds(events: SseEvent[]): { events: number; gaps: number; duplicates: number; misplaced: number } {
  const seen = new Set<number>();
  let gaps = 0;
  let duplicates = 0;
  let misplaced = 0;
  let last = 0;
  for (const event of events) {
    const id = Number(event.id);
    if (seen.has(id)) duplicates++;
    else if (id !== last + 1) gaps++;
    seen.add(id);
    last = Math.max(last, id);
    if ((event.data as { n: number }).n !== id - 1) misplaced++;
  }
  if (last < TOTAL) gaps++;
  return { events: events.length, gaps, duplicates, misplaced };
}

describe('restbus-gateway streaming from a JetStream stream on a 3-node NATS cluster', () => {
  it(
    `gives a client that was offline for 30 s, while ${OFFLINE_RATE} events/s were published and the gateway’s NATS node restarted, ` +
      `every one of ${TOTAL.toLocaleString('en')} events once and in order when it reconnects with Last-Event-ID`,
    async () => {
      const started = Date.now();
      const url = `http://${gateway.base}/rooms/main/events`;
      // A second client stays connected throughout: the node's restart is a pause for it, not an end.
      const stayer = await openSse(url);
      const first = await openSse(url);
      expect([first.res.statusCode, stayer.res.statusCode]).toEqual([200, 200]);

      await publishFast('main', 0, BEFORE);
      await waitFor(() => first.events.length === BEFORE, `the first ${BEFORE} events`, 60_000);
      first.res.destroy();
      const lastEventId = first.events.at(-1)!.id!;

      // Offline: 10 events/s for 30 s; the gateway's node goes down 5 s in and comes back (its JetStream whole) after 5 s.
      const offlineStart = Date.now();
      const restartedAt = gateway.server();
      const restart = (async () => {
        await sleep(5000);
        await gatewayNode.stop();
        await sleep(5000);
        await gatewayNode.start();
      })();
      for (let i = 0; i < OFFLINE_EVENTS; i++) {
        await sleep(offlineStart + (i * 1000) / OFFLINE_RATE - Date.now());
        await publish('main', BEFORE + i);
      }
      await restart;
      // The restart reached the gateway: its link lost the node and went on through another.
      expect(gateway.output()).toContain('lost NATS at');
      expect(gateway.server()).not.toBe(restartedAt);
      await sleep(offlineStart + OFFLINE_MS - Date.now());
      const offlineMs = Date.now() - offlineStart;

      const again = await openSse(url, { 'last-event-id': lastEventId });
      expect(again.res.statusCode).toBe(200);
      await publishFast('main', BEFORE + OFFLINE_EVENTS, TOTAL);
      const isDone = (events: SseEvent[]) => events.at(-1)?.id === String(TOTAL);
      await waitFor(() => isDone(again.events) && isDone(stayer.events), `event ${TOTAL} on both clients`, 60_000);
      // Anything after the last event would be a duplicate: give it a moment to show.
      await sleep(500);
      again.res.destroy();
      stayer.res.destroy();

      const resumed = countIds([...first.events, ...again.events]);
      const stayed = countIds(stayer.events);
      const longestPause = Math.max(...stayer.events.slice(1).map((e, i) => e.at - stayer.events[i].at));
      const seconds = ((Date.now() - started) / 1000).toFixed(1);
      console.log(
        `resume across a node restart: ${resumed.events} events, ${resumed.gaps} gaps, ${resumed.duplicates} duplicates, ` +
          `${resumed.misplaced} out of order (offline ${(offlineMs / 1000).toFixed(1)} s, ` +
          `${first.events.length} before, ${again.events.length} after Last-Event-ID ${lastEventId}); ` +
          `the client that stayed: ${stayed.events} events, ${stayed.gaps} gaps, ${stayed.duplicates} duplicates, ` +
          `its longest wait between two events ${longestPause} ms; the gateway moved from NATS node ${restartedAt} ` +
          `to ${gateway.server()}; ${seconds} s in all`,
      );
      expect(resumed).toEqual({ events: TOTAL, gaps: 0, duplicates: 0, misplaced: 0 });
      expect(stayed).toEqual({ events: TOTAL, gaps: 0, duplicates: 0, misplaced: 0 });
      expect([...first.events, ...again.events, ...stayer.events].every((e) => e.event === 'message')).toBe(true);
      // The feed takes a new consumer once the link has reconnected: 0.1 s, or some 2.3 s while the stream's leader
      // is elected again. Waiting for nats.js to notice a consumer on the lost node took up to 6.8 s.
      expect(longestPause).toBeLessThan(5_000);
    },
    180_000,
  );

  it('answers 403 and sends no event to a client whose service refuses it, kept or live, while another room’s client gets its events', async () => {
    await publishFast('secret', 0, 5);
    await publishFast('open', 0, 5);
    const base = `http://${gateway.base}/rooms`;
    const allowed = await openSse(`${base}/open/events`, { 'last-event-id': '0' });
    const refusals = [openSse(`${base}/secret/events`), openSse(`${base}/secret/events`, { 'last-event-id': '0' })];
    // Published while the service decides: the gateway holds such events for a client until it is allowed.
    await sleep(100);
    await publishFast('secret', 5, 10);
    await publishFast('open', 5, 10);
    for (const refused of await Promise.all(refusals)) {
      if (!refused.res.readableEnded) await new Promise((done) => refused.res.once('end', done));
      expect(refused.res.statusCode).toBe(403);
      expect(refused.res.headers['content-type']).toMatch(/^application\/json/);
      expect(JSON.parse(refused.text())).toEqual({ error: 'not yours', code: 'FORBIDDEN' });
      expect(refused.events).toEqual([]);
    }
    expect(allowed.res.statusCode).toBe(200);
    await waitFor(() => allowed.events.length === 10, 'the open room’s ten events');
    allowed.res.destroy();
    expect(allowed.events.map((e) => (e.data as { n: number }).n)).toEqual([...Array(10).keys()]);
    expect(asked.filter((room) => room === 'secret')).toHaveLength(2);
  }, 30_000);

  it('gives up a feed’s consumer within 4 s when its node is restarted, so a live client’s pause is short and has no gap', async () => {
    const client = await openSse(`http://${gateway.base}/rooms/live/events`);
    await publishFast('live', 0, 10);
    await waitFor(() => client.events.length === 10, 'the first ten events');
    const jsm = await publisher.jetstreamManager();
    const consumers = await jsm.consumers.list('ROOMS').next();
    const feed = consumers.find((info) =>
      [info.config.filter_subject, ...(info.config.filter_subjects ?? [])].includes('rooms.live.events'),
    );
    const holder = cluster.nodes[Number(feed?.cluster?.leader?.slice(1)) - 1];
    if (!holder)
      throw new Error(`no node holds the feed's consumer: ${JSON.stringify(consumers.map((c) => c.cluster))}`);
    let stoppedAt = 0;
    const restart = (async () => {
      await sleep(1000);
      stoppedAt = Date.now();
      await holder.stop();
      await sleep(3000);
      await holder.start();
    })();
    const start = Date.now();
    for (let i = 0; i < 120; i++) {
      await sleep(start + i * 100 - Date.now());
      await publish('live', 10 + i);
    }
    await restart;
    await waitFor(() => client.events.length === 130, 'the events published through the restart', 60_000);
    client.res.destroy();
    const pause = Math.max(...client.events.slice(11).map((e, i) => e.at - client.events[10 + i].at));
    // When the gateway gave the consumer up, as its log says: missed heartbeats, or its own link lost with the node.
    const noticed = gateway
      .output()
      .split('\n')
      .filter((line) => /stream feed lost its consumer|stream feeds take new consumers/.test(line))
      .map((line) => (JSON.parse(line) as { time: number }).time)
      .find((time) => time >= stoppedAt);
    console.log(
      `a live client's longest wait between two events while its consumer's node restarted: ${pause} ms; ` +
        `the gateway gave the consumer up ${noticed === undefined ? 'never' : `${noticed - stoppedAt} ms`} after the node was stopped`,
    );
    expect(client.events.map((e) => (e.data as { n: number }).n)).toEqual([...Array(130).keys()]);
    // At once when the gateway's link was on that node; else after two missed 1 s idle heartbeats, 2 to 3 s (with
    // heartbeats at half the 5 s pull, 5 to 7.5 s; and never when its link was on that node, but for the gap the
    // restarted node's consumer made).
    expect(noticed).toBeDefined();
    expect(noticed! - stoppedAt).toBeLessThan(4_000);
    // Then the consumer is made again, after the stream's election when its leader went too: 28.7 s with 30 s pulls.
    expect(pause).toBeLessThan(10_000);
  }, 90_000);

  it('moves a live client and a replaying one with the gateway when its NATS node enters lame duck mode: no end, no gap, a pause under 2 s', async () => {
    const url = `http://${gateway.base}/rooms/ldm/events`;
    const stayer = await openSse(url);
    // A client coming back after a long absence: its replay of 3,000 events runs while the node goes.
    await publishFast('ldm', 0, 3000);
    await waitFor(() => stayer.events.length === 3000, 'the first 3,000 events', 60_000);
    // Live clients of five more rooms: each feed's consumer is made again after the move, and JetStream places one
    // on the node being left a third of the time (then it is never answered for, or silent).
    const rooms = ['ldm1', 'ldm2', 'ldm3', 'ldm4', 'ldm5'];
    const others = await Promise.all(rooms.map((room) => openSse(`http://${gateway.base}/rooms/${room}/events`)));
    const returning = await openSse(url, { 'last-event-id': '0' });
    const node = cluster.nodes.find((candidate) => gateway.server() === `127.0.0.1:${candidate.port}`);
    if (!node) throw new Error(`cannot tell which node the gateway is on:\n${gateway.output()}`);
    // It leaves within its lame duck duration (30 s); the cluster is disposed after this test, so nobody waits for it.
    const leaving = node.enterLameDuck().catch(() => undefined);
    const start = Date.now();
    for (let i = 0; i < 60; i++) {
      await sleep(start + i * 100 - Date.now());
      await Promise.all([publish('ldm', 3000 + i), ...rooms.map((room) => publish(room, i))]);
    }
    // The ids are sequences of the whole ROOMS stream (other rooms' events among them): the payloads count.
    const isDone = (events: SseEvent[]) => (events.at(-1)?.data as { n?: number } | undefined)?.n === 3059;
    const allOthers = () => others.every((other) => other.events.length >= 60);
    await waitFor(
      () => isDone(stayer.events) && isDone(returning.events) && allOthers(),
      'event 3,060 on both clients, 60 on the others',
      30_000,
    ).catch((err: unknown) => {
      const last = (events: SseEvent[]) => `${events.length} events, the last ${JSON.stringify(events.at(-1)?.data)}`;
      throw new Error(
        `${String(err)}: the live client ${last(stayer.events)}, the returning one ${last(returning.events)}, ` +
          `the others ${others.map((other) => other.events.length).join(', ')}; ` +
          `the gateway said:\n${gateway.output().slice(-3000)}`,
      );
    });
    await sleep(500);
    const clients = [stayer, returning, ...others];
    const ended = clients.filter((client) => client.res.readableEnded || client.res.destroyed).length;
    for (const client of clients) client.res.destroy();
    const pause = Math.max(...stayer.events.slice(3001).map((e, i) => e.at - stayer.events[3000 + i].at));
    const longestWait = (events: SseEvent[]) => Math.max(0, ...events.slice(1).map((e, i) => e.at - events[i].at));
    const replayWait = longestWait(returning.events);
    const othersWait = Math.max(...others.map((other) => longestWait(other.events)));
    const payloads = (events: SseEvent[]) => events.map((event) => (event.data as { n: number }).n);
    const rising = (events: SseEvent[]) =>
      events.every((event, i) => i === 0 || Number(event.id) > Number(events[i - 1].id));
    const expected = [...Array(3060).keys()];
    console.log(
      `lame duck under open streams: the gateway moved from ${node.url} (${gateway.output().includes('lame duck') ? 'make before break' : 'how?'}); ` +
        `the live client's longest wait between two events ${pause} ms; ${returning.events.length} events to the returning one, ` +
        `its longest wait ${replayWait} ms; the other rooms' clients' longest wait ${othersWait} ms`,
    );
    expect(ended).toBe(0);
    expect(gateway.output()).not.toContain('lost NATS at 127.0.0.1:' + node.port);
    expect(payloads(stayer.events)).toEqual(expected);
    expect(payloads(returning.events)).toEqual(expected);
    expect([rising(stayer.events), rising(returning.events)]).toEqual([true, true]);
    expect(others.map((other) => payloads(other.events))).toEqual(rooms.map(() => [...Array(60).keys()]));
    // Before consumers placed on the node being left were made again: 9 to 19 s for the live client, and a replay
    // that resumed after 40 s or never. Now 0.1 to 0.8 s here; the bound leaves room for a CI machine under load.
    expect(Math.max(pause, othersWait)).toBeLessThan(3000);
    expect(replayWait).toBeLessThan(5000);
    void leaving;
  }, 60_000);
});
