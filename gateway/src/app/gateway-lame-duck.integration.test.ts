import pino from 'pino';
import { createExecutive, createNatsLink, type NatsLink } from '@restbus/infra';
import { startNatsCluster, waitFor, type TestNatsCluster } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from '../__tests__/start-test-gateway';

const logger = pino({ level: 'silent' });
const CLIENTS = 8;
const ROUNDS = 2;

let cluster: TestNatsCluster | undefined;
let service: ReturnType<typeof createExecutive> | undefined;
let gatewayLink: NatsLink | undefined;
let gateway: TestGateway | undefined;

afterEach(async () => {
  await gateway?.close();
  await service?.stop();
  await gatewayLink?.drain();
  await cluster?.dispose();
});

/** POST /items (a call the gateway never sends twice) from several clients at once until stopped; the status of each call (0: no answer at all). */
function startClients(url: string) {
  const statuses: number[] = [];
  let stopping = false;
  const client = async (): Promise<void> => {
    while (!stopping) {
      try {
        const response = await fetch(`${url}/items`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ name: 'item' }),
        });
        await response.arrayBuffer();
        statuses.push(response.status);
      } catch {
        statuses.push(0);
      }
    }
  };
  const clients = Array.from({ length: CLIENTS }, () => client());
  return {
    statuses,
    async stop(): Promise<void> {
      stopping = true;
      await Promise.all(clients);
    },
  };
}

/** Resolves once `count` calls were answered (or failed) in all: the clients go on through each node's move. */
async function waitForCalls(statuses: readonly number[], count: number): Promise<void> {
  await waitFor(() => statuses.length >= count, { what: `${count} calls`, timeoutMs: 60_000, everyMs: 10 });
}

it('answers every POST (sent once) while every NATS node in turn enters lame duck mode and starts again', async () => {
  cluster = await startNatsCluster();
  // A service as services are run: the executive, its link and its responder.
  service = createExecutive({
    name: 'items-service',
    version: '1.0.0',
    description: 'items',
    startups: [
      ({ register }) =>
        register({ method: 'post', uri: '/items' }, (_request, reply) =>
          reply(null, { status: 201, body: { id: 'x' } }),
        ),
    ],
    argv: ['-n', cluster.urls],
    env: {},
    logger,
  });
  await service.start();
  gatewayLink = createNatsLink({ servers: cluster.urls, name: 'restbus-gateway', logger });
  await gatewayLink.ready();
  gateway = await startTestGateway([testEndpoint('post', '/items')], { link: gatewayLink, timeoutMs: 5000 });
  const clients = startClients(gateway.url);
  try {
    await waitForCalls(clients.statuses, 100);
    for (let round = 0; round < ROUNDS; round++) {
      for (const node of cluster.nodes) {
        await node.enterLameDuck();
        await node.start();
        await waitForCalls(clients.statuses, clients.statuses.length + 50);
      }
    }
  } finally {
    await clients.stop();
  }
  const failed = clients.statuses.filter((status) => status !== 201);
  expect({ calls: clients.statuses.length, failed }).toEqual({ calls: clients.statuses.length, failed: [] });
});
