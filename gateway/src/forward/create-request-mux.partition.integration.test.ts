import { connect, headers, type NatsConnection } from 'nats';
import pino from 'pino';
import { createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsCluster, type TestNatsCluster, type TestNatsServer } from '@restbus/infra/testing';
import { createRequestMux, type RequestMux } from './create-request-mux';

// The gateway's node is cut off from its peers (its routes blackholed) while a call is on its way: the call went
// into the node and nowhere else. Once the link has moved to a node that sees the cluster, a call that may be sent
// twice is sent again there, and answered, instead of waiting for its deadline.
let cluster: TestNatsCluster;
const links: NatsLink[] = [];
const services: NatsConnection[] = [];

beforeAll(async () => {
  // Without JetStream, whose raft traffic keeps nats-server 2.9.10 from pinging a route (nats-server#4014): the
  // cut-off node finds its routes dead after ping_interval × ping_max, and tells the link.
  cluster = await startNatsCluster({ faults: true, pingInterval: '1s', pingMax: 2, jetstream: false });
});

afterAll(async () => {
  for (const link of links) await link.drain();
  for (const service of services) await service.close();
  await cluster?.dispose();
});

const text = (value: string): Uint8Array => new TextEncoder().encode(value);

/**
 * A link and a mux on it, and a service echoing on `subject` on another node (connected past the proxies, so that only the link's
 * node is cut off) that leaves unanswered the copies `ignore` names; resolves once a call across is answered, with
 * the link's node.
 */
async function connectAcross(
  subject: string,
  ignore: (body: string) => boolean,
): Promise<{ mux: RequestMux; own: TestNatsServer }> {
  cluster.faults?.heal();
  const link = createNatsLink({
    servers: cluster.urls.split(','),
    name: 'mux-partition-test',
    logger: pino({ level: 'silent' }),
  });
  links.push(link);
  const nc = await link.ready();
  const own = cluster.nodes.find((node) => nc.getServer().endsWith(`:${cluster.faults?.client(node).port}`));
  const other = cluster.nodes.find((node) => node !== own) as TestNatsServer;
  const service = await connect({ servers: other.url });
  services.push(service);
  service.subscribe(subject, { callback: (_err, msg) => !ignore(msg.string()) && msg.respond(msg.data) });
  await service.flush();
  const mux = createRequestMux(nc);
  // The service's subscription has reached the gateway's node (over healed routes) once a call is answered.
  for (let tries = 0; ; tries++) {
    const ready = await mux
      .request(subject, text('ready'), headers(), 2000, { retryable: true })
      .catch(() => undefined);
    if (ready) break;
    if (tries > 100) throw new Error('the service never answered');
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  return { mux, own: own as TestNatsServer };
}

describe('createRequestMux on a link whose node is cut off from its peers', () => {
  it('sends a call that may be repeated again on the node the link moved to, and is answered there', async () => {
    const { mux, own } = await connectAcross('echo', () => false);
    cluster.faults?.setRoutes(own, { kind: 'blackhole' });
    // No hedge: only the move may send it again. Sent once, the call would end in UPSTREAM_TIMEOUT at its deadline.
    const reply = await mux.request('echo', text('across'), headers(), 15_000, { retryable: true });
    expect(reply.string()).toBe('across');
  });

  it('still hedges a call whose copy sent again after the move was lost too, rather than let it time out', async () => {
    // The copy sent after the move can meet what the partition left behind (a peer that has not yet found the cut
    // node's routes dead still routes to the subscriptions it had there): here the service drops it. CI saw three
    // writes of a partition test time out so.
    let copies = 0;
    const { mux, own } = await connectAcross('echo-once', (body) => body === 'lost twice' && copies++ === 0);
    cluster.faults?.setRoutes(own, { kind: 'blackhole' });
    // The hedge is due after the move (the routes are found dead in 2-3 s): the move's resend must not use it up.
    const reply = await mux.request('echo-once', text('lost twice'), headers(), 20_000, {
      retryable: true,
      hedgeAfterMs: 7000,
    });
    expect(reply.string()).toBe('lost twice');
    // Answered, and not by the deadline's UPSTREAM_TIMEOUT: the hedge went out after the move's copy was lost.
    expect(copies).toBe(2);
  });
});
