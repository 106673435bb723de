import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { connect, type NatsConnection } from 'nats';
import { startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { runGateway } from '../__tests__/run-gateway';
import { launchGateway, stopGateway, type RunningGateway } from '../security/__tests__/run-auth-gateway';

/** The rate-limited operation of the cluster stack (docker-compose.cluster.yml) and the root README's recipe. */
const EXAMPLE = resolve(__dirname, '../../../examples/limited-persons/limited-persons-api.yml');

let dir: string;
let nats: TestNatsServer;
let service: NatsConnection;
/** The calls the service got, by subject and client header: a refused call must never get there. */
const served = new Map<string, number>();
const gateways: RunningGateway[] = [];

const api = {
  openapi: '3.0.3',
  info: { title: 'limited', version: '1' },
  // The document's limit: one count for every operation without its own.
  'x-restbus-rate-limit': { name: 'api', limit: 6, window: '1h', by: 'header:x-client' },
  paths: {
    '/reports': {
      get: {
        'x-restbus-rate-limit': [
          { name: 'burst', limit: 3, window: '1h', by: 'header:x-client' },
          { name: 'daily', limit: 1000, window: '1d', by: 'header:x-client' },
        ],
        responses: { '200': { description: 'the reports' } },
      },
    },
    '/a': { get: { responses: { '200': { description: 'a' } } } },
    '/b': { get: { responses: { '200': { description: 'b' } } } },
    '/free': { get: { 'x-restbus-rate-limit': [], responses: { '200': { description: 'no limit' } } } },
    '/by-address': {
      get: {
        'x-restbus-rate-limit': { limit: 2, window: '1h', by: 'address' },
        responses: { '200': { description: 'limited by address' } },
      },
    },
  },
};

async function start(extra: string[] = [], file = 'limited.json'): Promise<RunningGateway> {
  const gateway = await launchGateway(['-r', join(dir, file), '-u', '-n', nats.url, ...extra], { linked: true });
  gateways.push(gateway);
  return gateway;
}

const get = (gateway: RunningGateway, path: string, client: string): Promise<Response> =>
  fetch(`${gateway.url}${path}`, { headers: { 'x-client': client } });

async function statuses(gateway: RunningGateway, path: string, client: string, calls: number): Promise<number[]> {
  const seen: number[] = [];
  for (let i = 0; i < calls; i++) seen.push((await get(gateway, path, client)).status);
  return seen;
}

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-rate-limits-'));
  nats = await startNatsServer();
  service = await connect({ servers: nats.url });
  service.subscribe('easer.>', {
    callback: (_err, msg) => {
      const { request } = msg.json<{ request: { headers: Record<string, string> } }>();
      const key = `${msg.subject} ${request.headers['x-client']}`;
      served.set(key, (served.get(key) ?? 0) + 1);
      msg.respond(JSON.stringify({ status: 200, body: { ok: true } }));
    },
  });
  await service.flush();
  await writeFile(join(dir, 'limited.json'), JSON.stringify(api));
});
afterAll(async () => {
  await Promise.all(gateways.map(stopGateway));
  await service?.close();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

describe('x-restbus-rate-limit through the gateway binary', () => {
  it('admits a client up to the limit, then answers 429 RATE_LIMITED with Retry-After, and the service never sees it', async () => {
    const gateway = await start();
    expect(await statuses(gateway, '/reports', 'ann', 5)).toEqual([200, 200, 200, 429, 429]);
    const refused = await get(gateway, '/reports', 'ann');
    expect(refused.status).toBe(429);
    expect(await refused.json()).toEqual({ error: expect.stringContaining('"burst" allows 3'), code: 'RATE_LIMITED' });
    const retryAfter = Number(refused.headers.get('retry-after'));
    expect(retryAfter).toBeGreaterThan(0);
    expect(retryAfter).toBeLessThanOrEqual(3600);
    expect(served.get('easer.get_/reports ann')).toBe(3);
  });

  it('says every limit and what is left on each answer, as the IETF RateLimit fields', async () => {
    const gateway = await start();
    const first = await get(gateway, '/reports', 'ben');
    expect(first.headers.get('ratelimit-policy')).toBe('"burst";q=3;w=3600, "daily";q=1000;w=86400');
    expect(first.headers.get('ratelimit')).toMatch(/^"burst";r=2;t=\d+, "daily";r=999;t=\d+$/);
    await get(gateway, '/reports', 'ben');
    await get(gateway, '/reports', 'ben');
    const refused = await get(gateway, '/reports', 'ben');
    expect(refused.headers.get('ratelimit')).toMatch(/^"burst";r=0;t=\d+, /);
  });

  it('counts two clients apart', async () => {
    const gateway = await start();
    expect(await statuses(gateway, '/reports', 'cid', 4)).toEqual([200, 200, 200, 429]);
    expect(await statuses(gateway, '/reports', 'dan', 4)).toEqual([200, 200, 200, 429]);
  });

  it("shares the document's limit among the operations without their own, and lifts it where an operation says []", async () => {
    const gateway = await start();
    const spread = [...(await statuses(gateway, '/a', 'eve', 4)), ...(await statuses(gateway, '/b', 'eve', 4))];
    expect(spread).toEqual([200, 200, 200, 200, 200, 200, 429, 429]);
    expect(await statuses(gateway, '/free', 'eve', 10)).toEqual(Array(10).fill(200));
  });

  it('holds one limit across two gateways sharing a NATS server, however the calls alternate', async () => {
    const [one, two] = [await start(), await start()];
    const seen: number[] = [];
    for (let i = 0; i < 10; i++) seen.push((await get(i % 2 ? one : two, '/reports', 'fay')).status);
    expect(seen.filter((status) => status === 200)).toHaveLength(3);
    expect(served.get('easer.get_/reports fay')).toBe(3);
  });

  it('keeps at most --rateLimitClients clients whatever a flood of new ones sends', async () => {
    const gateway = await start(['--rateLimitClients', '100']);
    for (let i = 0; i < 600; i += 50)
      await Promise.all(
        Array.from({ length: 50 }, (_, j) =>
          get(gateway, '/free', 'x').then(() => get(gateway, '/a', `flood-${i + j}`)),
        ),
      );
    const metrics = await (await fetch(`${gateway.url}/-/metrics`)).text();
    const kept = Number(/^restbus_gateway_rate_limit_clients (\d+)/m.exec(metrics)?.[1]);
    expect(kept).toBeLessThanOrEqual(100);
    expect(kept).toBeGreaterThan(0);
    expect(metrics).toMatch(/restbus_gateway_rate_limit_calls_total\{operation="getA",outcome="admitted"\} 600/);
  });

  it('ignores the X-Forwarded-For of a caller that is no trusted proxy: a client cannot make itself new clients', async () => {
    const gateway = await start();
    const seen: number[] = [];
    for (let i = 0; i < 4; i++) {
      const forwarded = { 'x-forwarded-for': `203.0.113.${i}` };
      seen.push((await fetch(`${gateway.url}/by-address`, { headers: forwarded })).status);
    }
    expect(seen).toEqual([200, 200, 429, 429]);
  });

  it('counts the client X-Forwarded-For names behind a trusted proxy', async () => {
    const gateway = await start(['--rateLimitTrustedProxies', 'loopback']);
    const call = (client: string) =>
      fetch(`${gateway.url}/by-address`, { headers: { 'x-forwarded-for': client } }).then((answer) => answer.status);
    expect([await call('198.51.100.1'), await call('198.51.100.1'), await call('198.51.100.1')]).toEqual([
      200, 200, 429,
    ]);
    expect(await call('198.51.100.2')).toBe(200);
  });

  it('refuses a trusted proxy setting it cannot read, at start', async () => {
    const run = await runGateway([
      '-r',
      join(dir, 'limited.json'),
      '-p',
      '0',
      '--rateLimitTrustedProxies',
      'not-an-address',
    ]);
    expect(run.code).not.toBe(0);
    expect(run.stderr).toContain('--rateLimitTrustedProxies');
  });

  it('counts a client named by a header of kilobytes as one client, kept by its hash', async () => {
    const gateway = await start();
    const huge = 'k'.repeat(8 * 1024);
    expect(await statuses(gateway, '/reports', huge, 4)).toEqual([200, 200, 200, 429]);
  });

  it('refuses to load a limit it cannot apply, naming the file, line and member', async () => {
    const broken = {
      ...api,
      paths: {
        '/x': {
          get: { 'x-restbus-rate-limit': { limit: 0, window: '1m' }, responses: { '200': { description: 'x' } } },
        },
      },
    };
    await writeFile(join(dir, 'broken.yml'), toYaml(broken));
    const run = await runGateway(['-r', join(dir, 'broken.yml'), '-u', '-n', nats.url, '-p', '0']);
    expect(run.code).not.toBe(0);
    expect(run.stdout + run.stderr).toMatch(/broken\.yml:\d+/);
    expect(run.stdout + run.stderr).toContain('x-restbus-rate-limit.limit must be >= 1');
    // --check says it too, before any gateway is started with it.
    const check = await runGateway(['--check', '-r', join(dir, 'broken.yml')]);
    expect(check.code).toBe(1);
    expect(check.stdout).toMatch(
      /broken\.yml:16:9 +error +paths\.\/x\.get\.x-restbus-rate-limit: .*limit must be >= 1/,
    );
    expect(check.stdout).toContain('cannot be served');
  });

  it('checks the limited example the cluster stack serves as servable', async () => {
    const check = await runGateway(['--check', '-r', EXAMPLE]);
    expect(check).toMatchObject({ code: 0, stderr: '' });
    expect(check.stdout).toContain('1 operation can be served');
  });
});

/** JSON is YAML: written one member a line, so that the member has a line of its own to be named by. */
const toYaml = (value: unknown): string => JSON.stringify(value, null, 2);
