import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

const logger = pino({ level: 'silent' });
const sleep = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

describe('a responder that replies garbage', () => {
  let server: TestNatsServer;
  let link: NatsLink;
  let service: NatsConnection;
  let gateway: TestGateway;
  let reply: Uint8Array | string = '';

  beforeAll(async () => {
    server = await startNatsServer({ maxPayload: 16 * 1024 * 1024 });
    link = createNatsLink({ servers: server.url, name: 'garbage', logger });
    await link.ready();
    service = await connect({ servers: server.url });
    service.subscribe('easer.get_/items', { callback: (_err, msg) => msg.respond(reply) });
    await service.flush();
    gateway = await startTestGateway([testEndpoint('get', '/items')], { link });
  });
  afterAll(async () => {
    await gateway?.close();
    await link?.drain();
    await service?.close();
    await server?.dispose();
  });

  const tenMegabytes = 'z'.repeat(10 * 1024 * 1024);
  it.each([
    ['non-JSON text', 502, 'not json at all'],
    ['a bare number', 502, '42'],
    ['a JSON string', 502, '"text"'],
    ['an empty payload', 502, ''],
    ['invalid UTF-8', 502, new Uint8Array([0x7b, 0xff, 0xfe, 0x7d])],
    ['a status of the wrong type', 502, '{"status":"200"}'],
    ['headers that are not an object', 502, '{"status":200,"headers":[1]}'],
    ['a reply without status', 200, '{"body":{"ok":true}}'],
    ['10 MB of junk', 502, tenMegabytes],
    ['a 10 MB body', 200, JSON.stringify({ status: 200, body: tenMegabytes })],
  ])('survives %s, answers %i and keeps serving', async (_what, status, payload) => {
    reply = payload;
    const response = await fetch(`${gateway.url}/items`);
    expect(response.status).toBe(status);
    const text = await response.text();
    if (status === 502) expect(JSON.parse(text)).toMatchObject({ code: 'BAD_REPLY' });
    reply = '{"status":200,"body":[]}';
    expect((await fetch(`${gateway.url}/items`)).status).toBe(200);
  });
});

describe('NATS going away under load', () => {
  it('answers 503 while NATS is down, never fails, and serves 2xx again once it is back', async () => {
    const server = await startNatsServer();
    const link = createNatsLink({ servers: server.url, name: 'outage', logger });
    await link.ready();
    const service = await connect({ servers: server.url, maxReconnectAttempts: -1, reconnectTimeWait: 200 });
    service.subscribe('easer.get_/items', { callback: (_err, msg) => msg.respond('{"status":200,"body":[]}') });
    await service.flush();
    const gateway = await startTestGateway([testEndpoint('get', '/items')], { link, timeoutMs: 500 });
    // Calls are judged by where the outage stood when they were sent and answered, never by a clock: how long a
    // loaded machine takes to notice or to restart is its own. `linkUp`: whether the gateway's link (the same
    // object) knew NATS was there when the call was sent.
    type Phase = 'up' | 'down' | 'restarting' | 'back';
    let phase = 'up' as Phase;
    const results: Array<{ sentIn: Phase; answeredIn: Phase; status: number; linkUp: boolean }> = [];
    try {
      // A call every 5 ms, until 1,200 are sent and 200 of them after NATS is back; NATS goes away after 1.5 s, and
      // comes back once 150 calls were answered while it was away and the link knew it (a count, not a time: a
      // loaded machine sends fewer calls a second).
      const load = (async () => {
        const calls: Array<Promise<void>> = [];
        let sentBack = 0;
        for (let i = 0; i < 1200 || sentBack < 200; i++) {
          await sleep(5);
          const sentIn = phase;
          if (sentIn === 'back') sentBack += 1;
          const linkUp = link.isConnected();
          calls.push(
            fetch(`${gateway.url}/items`).then(
              async (response) => {
                await response.arrayBuffer();
                results.push({ sentIn, answeredIn: phase, status: response.status, linkUp });
              },
              () => {
                results.push({ sentIn, answeredIn: phase, status: 0, linkUp });
              },
            ),
          );
        }
        await Promise.all(calls);
      })();
      await sleep(1500);
      phase = 'down';
      await server.stop();
      const answeredWhileDown = () =>
        results.filter((r) => !r.linkUp && r.sentIn === 'down' && r.answeredIn === 'down');
      for (let waited = 0; answeredWhileDown().length < 150; waited += 20) {
        if (waited > 120_000)
          throw new Error(`only ${answeredWhileDown().length} calls were answered while NATS was down`);
        await sleep(20);
      }
      phase = 'restarting';
      await server.start();
      phase = 'back';
      await load;

      expect(results.filter((r) => r.status === 0)).toEqual([]); // every call got an HTTP answer
      expect(new Set(results.map((r) => r.status))).toEqual(
        new Set([200, 503, ...(results.some((r) => r.status === 504) ? [504] : [])]),
      );
      // Sent while NATS was down and the link knew it (calls sent before it noticed may time out instead): 503 at
      // once, or, for a call that waited for the link's return (a failover wait), 200 once the server was starting
      // again. Never anything else.
      const whileDown = results.filter((r) => !r.linkUp && r.sentIn === 'down');
      expect(whileDown.length).toBeGreaterThan(100);
      const wrong = whileDown.filter((r) => !(r.status === 503 || (r.status === 200 && r.answeredIn !== 'down')));
      expect(wrong).toEqual([]);
      expect(whileDown.filter((r) => r.status === 503).length).toBeGreaterThan(100);
      // Back: it serves again, and the last hundred calls sent after the return all succeed.
      const sentBack = results.filter((r) => r.sentIn === 'back');
      expect(sentBack.some((r) => r.status === 200)).toBe(true);
      expect(sentBack.slice(-100).every((r) => r.status === 200)).toBe(true);
      expect((await fetch(`${gateway.url}/-/health`)).status).toBe(200);
    } finally {
      await gateway.close();
      await link.drain();
      await service.close();
      await server.dispose();
    }
  });
});
