import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { startNatsCluster, type TestNatsCluster } from '@restbus/infra/testing';
import { launchGateway, stopGateway, type RunningGateway } from '../security/__tests__/run-auth-gateway';

// Three gateways on a three-node cluster, as the compose cluster stack runs them behind its load balancer: one limit
// held across all of them, with a node lost, and with NATS gone. Windows of an hour: none turns during the test.
const LIMIT = 30;

let dir: string;
let cluster: TestNatsCluster;
let service: NatsConnection;
let served = 0;
let gateways: RunningGateway[] = [];

async function startGateways(extra: string[] = []): Promise<RunningGateway[]> {
  await Promise.all(gateways.map(stopGateway));
  gateways = [];
  for (let i = 0; i < 3; i++) {
    const args = ['-r', join(dir, 'limited.json'), '-u', '-n', cluster.urls, '--timeout', '3000', ...extra];
    gateways.push(await launchGateway(args, { linked: true }));
  }
  return gateways;
}

/** `calls` calls of `client`, round robin over the gateways, as a load balancer spreads them: their statuses. */
async function hammer(client: string, calls: number, from = 0): Promise<number[]> {
  const seen: number[] = [];
  for (let i = from; i < from + calls; i++) {
    const gateway = gateways[i % gateways.length];
    seen.push((await fetch(`${gateway.url}/reports`, { headers: { 'x-client': client } })).status);
  }
  return seen;
}

async function readGauge(gateway: RunningGateway, name: string): Promise<number> {
  const metrics = await (await fetch(`${gateway.url}/-/metrics`)).text();
  return Number(new RegExp(`^${name} (\\d+)`, 'm').exec(metrics)?.[1]);
}

const count = (statuses: number[], status: number): number => statuses.filter((one) => one === status).length;

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-rate-limits-cluster-'));
  cluster = await startNatsCluster();
  service = await connect({ servers: cluster.nodes[2].url });
  service.subscribe('easer.>', {
    callback: (_err, msg) => {
      served++;
      msg.respond(JSON.stringify({ status: 200, body: { ok: true } }));
    },
  });
  await service.flush();
  const api = {
    openapi: '3.0.3',
    info: { title: 'limited', version: '1' },
    paths: {
      '/reports': {
        get: {
          'x-restbus-rate-limit': { limit: LIMIT, window: '1h', by: 'header:x-client' },
          responses: { '200': { description: 'the reports' } },
        },
      },
    },
  };
  await writeFile(join(dir, 'limited.json'), JSON.stringify(api));
});
afterAll(async () => {
  await Promise.all(gateways.map(stopGateway));
  await service?.close();
  await cluster?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('one rate limit across three gateways on a three-node NATS cluster', () => {
  it('admits a client hammering through all three at most the limit, and refuses the rest before the service', async () => {
    await startGateways();
    const before = served;
    const seen = await hammer('ann', 3 * LIMIT);
    expect(count(seen, 200)).toBeLessThanOrEqual(LIMIT);
    // What the leases lose at the end is a call or two per gateway.
    expect(count(seen, 200)).toBeGreaterThanOrEqual(LIMIT - 3);
    expect(count(seen, 429)).toBe(seen.length - count(seen, 200));
    expect(served - before).toBe(count(seen, 200));
  });

  it('limits two clients apart', async () => {
    expect(count(await hammer('ben', 2 * LIMIT), 200)).toBeGreaterThanOrEqual(LIMIT - 3);
    expect(count(await hammer('cid', 2 * LIMIT), 200)).toBeGreaterThanOrEqual(LIMIT - 3);
  });

  it('keeps the limit within twice its number when a node is killed mid-window, and refuses nobody for it', async () => {
    const first = await hammer('dan', LIMIT / 2);
    await cluster.nodes[0].kill();
    try {
      const after = await hammer('dan', 3 * LIMIT, LIMIT / 2);
      const admitted = count(first, 200) + count(after, 200);
      // A lease asked while the bucket elects a leader is answered by the local share (limit / 3 per gateway).
      expect(admitted).toBeLessThanOrEqual(2 * LIMIT);
      expect(admitted).toBeGreaterThanOrEqual(LIMIT - 3);
      expect(after.every((status) => status === 200 || status === 429)).toBe(true);
    } finally {
      await cluster.nodes[0].start();
    }
  });

  it("falls back to each gateway's share of the limit while NATS is gone: a third of it each, nobody refused by all", async () => {
    await startGateways();
    // Each gateway hears the other two within a few of their 2 s announcements: its share is then a third.
    for (let tries = 0; ; tries++) {
      const heard = await Promise.all(
        gateways.map((gateway) => readGauge(gateway, 'restbus_gateway_rate_limit_gateways')),
      );
      if (heard.every((count) => count === 3)) break;
      if (tries === 200) throw new Error(`the gateways heard ${heard.join(', ')} gateways, not 3 each`);
      await new Promise((done) => setTimeout(done, 100));
    }
    await Promise.all(cluster.nodes.map((node) => node.stop()));
    try {
      // With NATS gone an admitted call still cannot be forwarded (503 NATS_UNAVAILABLE): the limit counts anyway.
      const local = await hammer('eve', 3 * LIMIT);
      expect(count(local, 503)).toBe(LIMIT);
      expect(count(local, 429)).toBe(2 * LIMIT);
    } finally {
      await Promise.all(cluster.nodes.map((node) => node.start()));
    }
  });
});
