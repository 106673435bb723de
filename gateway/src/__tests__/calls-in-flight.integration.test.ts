import { connect, Events, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { sendRaw, startNatsCluster, type TestNatsCluster, type TestNatsServer } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

const logger = pino({ level: 'silent' });
const TIMEOUT_MS = 10_000;
// The node dies this far into the calls' budget, so that a deadline restarted by the second publish would show;
// and past the link's reconnect wait (1 s): nats.js first dials the server it lost again, not sooner than that
// after it connected there, and only then the next one.
const KILL_AFTER_MS = 4000;
/**
 * No clock is read (issue 45): when things happened is told by their order among the answers and two marker timers
 * started with the calls (timers of this process, as the gateway's deadlines are). `midway` fires between the loss
 * of the node (KILL_AFTER_MS) and the calls' deadline (TIMEOUT_MS), 3 s from each; `late` between the deadline and
 * where a deadline restarted by the second publish would fall (past KILL_AFTER_MS + TIMEOUT_MS), 2 s from each.
 */
const MIDWAY_MS = (KILL_AFTER_MS + TIMEOUT_MS) / 2;
const LATE_MS = TIMEOUT_MS + KILL_AFTER_MS / 2;

interface Call {
  id: string;
  method: string;
  path: string;
}
interface Answer {
  status: number;
  body: string;
}

const calls: Call[] = [
  ...Array.from({ length: 8 }, (_, i) => ({ id: `get-${i}`, method: 'GET', path: '/items' })),
  ...Array.from({ length: 2 }, (_, i) => ({ id: `head-${i}`, method: 'HEAD', path: '/items' })),
  ...Array.from({ length: 4 }, (_, i) => ({ id: `put-${i}`, method: 'PUT', path: `/items/${i}` })),
  ...Array.from({ length: 2 }, (_, i) => ({ id: `delete-${i}`, method: 'DELETE', path: `/items/${i}` })),
  ...Array.from({ length: 4 }, (_, i) => ({ id: `post-${i}`, method: 'POST', path: '/items' })),
  { id: 'slow-post', method: 'POST', path: '/slow' },
  ...Array.from({ length: 2 }, (_, i) => ({ id: `silent-${i}`, method: 'GET', path: '/silent' })),
];

const after = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

function waitForStatus(nc: NatsConnection, type: Events): Promise<void> {
  return (async () => {
    for await (const status of nc.status()) if (status.type === type) return;
  })();
}

describe('when the NATS node the gateway is connected to dies with calls in flight', () => {
  let cluster: TestNatsCluster;
  let link: NatsLink;
  let responder: NatsConnection;
  let gateway: TestGateway;
  let gatewayNode: TestNatsServer;
  let reconnectedTo = '';
  const deliveries = new Map<string, number>();
  const answers = new Map<string, Answer>();
  /** What happened, in order: answers by call id, the link's `disconnected` and `reconnected`, and the markers. */
  const events: string[] = [];
  let slowGet: { status: number; text: string };
  let fresh: { status: number; body: string };

  beforeAll(async () => {
    cluster = await startNatsCluster();
    link = createNatsLink({ servers: cluster.urls, name: 'in-flight', logger });
    const nc = await link.ready();
    gatewayNode = cluster.nodes.find((node) => nc.getServer().endsWith(`:${node.port}`))!;
    const responderNode = cluster.nodes.find((node) => node !== gatewayNode)!;
    responder = await connect({ servers: responderNode.url });

    // /items answers the second delivery of a call only (so only a call sent again is answered), /slow holds
    // its replies until the test lets them go, /silent never answers.
    const held: Array<() => void> = [];
    let onDelivery = (): void => undefined;
    const deliveriesReach = (done: () => boolean): Promise<void> =>
      new Promise((resolve) => {
        onDelivery = () => done() && resolve();
        onDelivery();
      });
    responder.subscribe('easer.>', {
      callback: (_err, msg) => {
        const id = msg.headers!.get('x-request-id');
        const delivery = (deliveries.get(id) ?? 0) + 1;
        deliveries.set(id, delivery);
        const status = msg.subject.startsWith('easer.post_') ? 201 : 200;
        const reply = (): void => {
          msg.respond(JSON.stringify({ status, body: { delivery } }));
        };
        if (msg.subject.endsWith('/slow')) held.push(reply);
        else if (msg.subject.endsWith('/fresh')) reply();
        else if (msg.subject.endsWith('/items') || msg.subject.endsWith('/items/{itemId}')) {
          if (delivery === 2) reply();
        }
        onDelivery();
      },
    });
    await responder.flush();

    gateway = await startTestGateway(
      [
        testEndpoint('get', '/items'),
        testEndpoint('put', '/items/{itemId}'),
        testEndpoint('delete', '/items/{itemId}'),
        testEndpoint('post', '/items'),
        testEndpoint('get', '/slow'),
        testEndpoint('post', '/slow'),
        testEndpoint('get', '/silent'),
        testEndpoint('post', '/fresh'),
      ],
      { link, timeoutMs: TIMEOUT_MS },
    );

    const killTime = after(KILL_AFTER_MS);
    const deadline = after(TIMEOUT_MS);
    const markers = [
      after(MIDWAY_MS).then(() => events.push('midway')),
      after(LATE_MS).then(() => events.push('late')),
    ];
    const inFlight = calls.map(async ({ id, method, path }) => {
      const response = await fetch(`${gateway.url}${path}`, {
        method,
        headers: { 'x-request-id': id, 'content-type': 'application/json' },
        body: method === 'PUT' || method === 'POST' ? '{}' : undefined,
      });
      answers.set(id, { status: response.status, body: await response.text() });
      events.push(id);
    });
    // Raw, so that the test sees every byte the gateway writes on this connection.
    const slowGetDone = sendRaw(
      Number(new URL(gateway.url).port),
      'GET /slow HTTP/1.1\r\nHost: x\r\nx-request-id: slow-get\r\nConnection: close\r\n\r\n',
    ).then((response) => (slowGet = { status: response.status, text: response.body }));

    await deliveriesReach(() => deliveries.size === calls.length + 1);
    await killTime;
    const reconnected = waitForStatus(nc, Events.Reconnect).then(() => events.push('reconnected'));
    const disconnected = waitForStatus(nc, Events.Disconnect).then(() => events.push('disconnected'));
    await gatewayNode.kill();
    await disconnected;
    // A call that arrives while the gateway is between servers.
    const freshDone = fetch(`${gateway.url}/fresh`, {
      method: 'POST',
      headers: { 'x-request-id': 'fresh', 'content-type': 'application/json' },
      body: '{}',
    }).then(async (response) => (fresh = { status: response.status, body: await response.text() }));
    await reconnected;
    reconnectedTo = nc.getServer();
    // The GET on /slow went out again: its first reply now comes after that second publish. (Bounded by the
    // calls' deadline, so that a gateway that does not publish again fails the tests below instead of hanging.)
    await Promise.race([deliveriesReach(() => deliveries.get('slow-get') === 2), deadline]);
    for (const reply of held) reply();
    await Promise.all([...inFlight, slowGetDone, freshDone, ...markers]);
  });

  afterAll(async () => {
    await gateway?.close();
    await link?.drain();
    await responder?.close();
    await cluster?.dispose();
  });

  const answersTo = (prefix: string): Array<[string, Answer]> =>
    [...answers].filter(([id]) => id.startsWith(prefix)).sort(([a], [b]) => a.localeCompare(b));
  /** Where an event happened among the others. */
  const when = (event: string): number => events.indexOf(event);
  const firstOf = (prefix: string): number => events.findIndex((event) => event.startsWith(prefix));

  it('reconnects the gateway to another node of the cluster', () => {
    expect(reconnectedTo).not.toBe('');
    expect(reconnectedTo.endsWith(`:${gatewayNode.port}`)).toBe(false);
  });

  it('answers every GET, HEAD, PUT and DELETE in flight with 200 by sending it once more on the new connection', () => {
    const idempotent = ['get-', 'head-', 'put-', 'delete-'].flatMap(answersTo);
    expect(idempotent).toHaveLength(16);
    for (const [id, answer] of idempotent) {
      expect({ id, status: answer.status, deliveries: deliveries.get(id) }).toEqual({ id, status: 200, deliveries: 2 });
      // Sent again at once on reconnect, not at the deadline: answered before the POSTs' deadline answers.
      expect({ id, beforeDeadline: when(id) < firstOf('post-') && when(id) < when('late') }).toEqual({
        id,
        beforeDeadline: true,
      });
    }
    expect(JSON.parse(answers.get('get-0')!.body)).toEqual({ delivery: 2 });
  });

  it('sends a POST in flight once only, and answers 503 NATS_UNAVAILABLE at its deadline when no reply comes', () => {
    const posts = answersTo('post-');
    expect(posts).toHaveLength(4);
    for (const [id, answer] of posts) {
      expect({ id, status: answer.status, deliveries: deliveries.get(id) }).toEqual({ id, status: 503, deliveries: 1 });
      expect(JSON.parse(answer.body)).toEqual({
        code: 'NATS_UNAVAILABLE',
        error: expect.stringMatching(/lost while the call was in flight; it may or may not have been applied/),
      });
      // At the deadline: not at the loss of the node, nor long after the deadline.
      expect({ id, afterMidway: when(id) > when('midway'), beforeLate: when(id) < when('late') }).toEqual({
        id,
        afterMidway: true,
        beforeLate: true,
      });
    }
  });

  it('answers a POST in flight with its reply when the reply comes over the new connection', () => {
    const answer = answers.get('slow-post')!;
    expect({ status: answer.status, deliveries: deliveries.get('slow-post') }).toEqual({ status: 201, deliveries: 1 });
    expect(JSON.parse(answer.body)).toEqual({ delivery: 1 });
  });

  it('writes one answer, the first reply, when the reply to the first publish comes after the call was sent again', () => {
    expect(deliveries.get('slow-get')).toBe(2);
    expect(slowGet.status).toBe(200);
    // Everything the gateway wrote after the response head: one body and nothing more.
    expect(slowGet.text).toBe('{"delivery":1}');
  });

  it('answers 503 NATS_UNAVAILABLE at the original deadline when the call sent again gets no reply either', () => {
    const silent = answersTo('silent-');
    expect(silent).toHaveLength(2);
    for (const [id, answer] of silent) {
      expect({ id, status: answer.status }).toEqual({ id, status: 503 });
      expect(JSON.parse(answer.body)).toMatchObject({ code: 'NATS_UNAVAILABLE' });
      // Sent again on the new connection, and hedged again at half of what was left, unless its first hedge went out
      // while the gateway was still dialing (nats.js sends that one once connected: then it is the call's second).
      expect({ id, deliveries: [2, 3].includes(deliveries.get(id) ?? 0) }).toEqual({ id, deliveries: true });
      // At the original deadline: a deadline restarted by the second publish would come after `late`.
      expect({ id, afterMidway: when(id) > when('midway'), beforeLate: when(id) < when('late') }).toEqual({
        id,
        afterMidway: true,
        beforeLate: true,
      });
    }
  });

  it('holds a POST that arrives while it moves to another node until it is there, then sends it once', () => {
    expect({ status: fresh.status, deliveries: deliveries.get('fresh') }).toEqual({ status: 201, deliveries: 1 });
    expect(JSON.parse(fresh.body)).toEqual({ delivery: 1 });
  });
});
