import { connect, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

// Long enough for a hedge at half of it, then a restart of the NATS server and both reconnects (about 1 s each).
const TIMEOUT_MS = 6000;

let nats: TestNatsServer;
let link: NatsLink;
let service: NatsConnection;
let gateway: TestGateway;

beforeAll(async () => {
  nats = await startNatsServer();
  link = createNatsLink({ servers: nats.url, name: 'put-resend', logger: pino({ level: 'silent' }) });
  await link.ready();
  service = await connect({ servers: nats.url, maxReconnectAttempts: -1, reconnectTimeWait: 100 });
  gateway = await startTestGateway([testEndpoint('put', '/items/{itemId}')], { link, timeoutMs: TIMEOUT_MS });
});
afterAll(async () => {
  await gateway?.close();
  await link?.drain();
  await service?.close();
  await nats?.dispose();
});

describe('a PUT whose NATS server restarts after it was hedged', () => {
  it('is sent again on the new connection and answered by the service, not 503 "lost while in flight"', async () => {
    // The service drops what it gets until the server restarts (the request went down with the node), and
    // answers what comes after.
    let dropping = false;
    const deliveries: string[] = [];
    let onDelivery = (): void => undefined;
    service.subscribe('easer.put_/items/{itemId}', {
      callback: (_err, msg) => {
        deliveries.push(msg.headers?.get('x-request-id') ?? '');
        onDelivery();
        if (!dropping) msg.respond(JSON.stringify({ status: 200, body: { stored: deliveries.length } }));
      },
    });
    await service.flush();
    // Answered once first: a subject served lately that finds no responder (the service not yet subscribed again
    // after the restart) is tried again for a moment, as in a failover.
    expect((await fetch(`${gateway.url}/items/1`, { method: 'PUT', body: '{}' })).status).toBe(200);

    dropping = true;
    const hedged = new Promise<void>((resolve) => {
      onDelivery = () => deliveries.filter((id) => id === 'put-1').length === 2 && resolve();
    });
    const answer = fetch(`${gateway.url}/items/1`, {
      method: 'PUT',
      headers: { 'x-request-id': 'put-1' },
      body: '{}',
    });
    // The first publish, then the hedge at half the timeout: both dropped.
    await hedged;
    await nats.stop();
    dropping = false;
    await nats.start();

    const response = await answer;
    const delivered = deliveries.filter((id) => id === 'put-1').length;
    expect({ status: response.status, body: (await response.json()) as unknown, delivered }).toEqual({
      status: 200,
      body: { stored: expect.any(Number) },
      delivered: 3,
    });
  });
});
