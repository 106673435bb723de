import type { AddressInfo } from 'node:net';
import { ServiceBroker } from 'moleculer';
import ApiGateway from 'moleculer-web';

// The peer the gateway is measured beside: moleculer-web, the API gateway of the moleculer framework, calling a
// moleculer action over the same NATS server (moleculer's NATS transporter). Two brokers in two processes, as a
// deployment has them; each answers `{ hello: 'world' }` like the restbus targets.

const brokerOptions = (nodeID: string, natsUrl: string) => ({
  nodeID,
  transporter: { type: 'NATS', options: { url: natsUrl } },
  logger: false,
  // The defaults a user gets, minus what would only add noise to a measurement.
  metrics: false,
  tracing: false,
});

/** The service side: a `hello.get` action. */
export async function startMoleculerResponder(natsUrl: string): Promise<ServiceBroker> {
  const broker = new ServiceBroker(brokerOptions(`hello-${process.pid}`, natsUrl));
  broker.createService({ name: 'hello', actions: { get: () => ({ hello: 'world' }) } });
  await broker.start();
  return broker;
}

/** The HTTP side: moleculer-web with `GET /hello` aliased to `hello.get`; resolves with its port. */
export async function startMoleculerWeb(natsUrl: string): Promise<number> {
  const broker = new ServiceBroker(brokerOptions(`web-${process.pid}`, natsUrl));
  const web = broker.createService({
    name: 'api',
    mixins: [ApiGateway],
    settings: { port: 0, ip: '127.0.0.1', routes: [{ path: '/', aliases: { 'GET hello': 'hello.get' } }] },
  });
  await broker.start();
  await broker.waitForServices(['hello']);
  return ((web as unknown as { server: { address(): AddressInfo } }).server.address() as AddressInfo).port;
}
