import { connect, headers, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsCluster, type TestNatsCluster, type TestNatsServer } from '@restbus/infra/testing';
import { createRequestMux } from './create-request-mux';

// The gateway's node is cut off from its peers (its routes blackholed) while a call is on its way: the call went
// into the node and nowhere else. Once the link has moved to a node that sees the cluster, a call that may be sent
// twice is sent again there, and answered, instead of waiting for its deadline.
let cluster: TestNatsCluster;
let link: NatsLink | undefined;
let service: NatsConnection | undefined;

beforeAll(async () => {
  // Without JetStream, whose raft traffic keeps nats-server 2.9.10 from pinging a route (nats-server#4014): the
  // cut-off node finds its routes dead after ping_interval × ping_max, and tells the link.
  cluster = await startNatsCluster({ faults: true, pingInterval: '1s', pingMax: 2, jetstream: false });
}, 30_000);

afterAll(async () => {
  await link?.drain();
  await service?.close();
  await cluster?.dispose();
});

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

describe('createRequestMux on a link whose node is cut off from its peers', () => {
  it('sends a call that may be repeated again on the node the link moved to, and is answered there', async () => {
    link = createNatsLink({
      servers: cluster.urls.split(','),
      name: 'mux-partition-test',
      logger: pino({ level: 'silent' }),
    });
    const nc = await link.ready();
    const own = cluster.nodes.find((node) => nc.getServer().endsWith(`:${cluster.faults?.client(node).port}`));
    const other = cluster.nodes.find((node) => node !== own) as TestNatsServer;
    // The service is on another node, connected past the proxies: only the gateway's node is cut off.
    service = await connect({ servers: other.url });
    service.subscribe('echo', { callback: (_err, msg) => msg.respond(msg.data) });
    await service.flush();
    const mux = createRequestMux(nc);
    // The service's subscription has reached the gateway's node once a call is answered.
    for (let tries = 0; ; tries++) {
      const ready = await mux
        .request('echo', text('ready'), headers(), 2000, { retryable: true })
        .catch(() => undefined);
      if (ready) break;
      if (tries > 50) throw new Error('the service never answered');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    cluster.faults?.setRoutes(own as TestNatsServer, { kind: 'blackhole' });
    const started = performance.now();
    // No hedge: only the move may send it again.
    const reply = await mux.request('echo', text('across'), headers(), 15_000, { retryable: true });
    expect(reply.string()).toBe('across');
    expect(performance.now() - started).toBeLessThan(10_000);
  }, 40_000);
});
