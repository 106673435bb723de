import { Agent, METHODS, request } from 'node:http';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { checkRoutes, readApiDescription } from '@restbus/openapi';
import { recordHostileCounts, startNatsServer, type TestNatsServer } from '@restbus/infra/testing';
import { startGatewayProcess, type GatewayProcess } from '../streams/__tests__/gateway-process';
import { countRequestSeries, requestSeriesBound } from './count-request-series';

const API = {
  openapi: '3.0.3',
  info: { title: 'persons', version: '1' },
  paths: {
    '/persons': { get: { responses: { '200': { description: 'ok' }, default: { description: 'any' } } } },
    '/persons/{id}': {
      get: {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        responses: { '200': { description: 'ok' }, default: { description: 'any' } },
      },
    },
  },
};

let dir: string;
let nats: TestNatsServer;
let gateway: GatewayProcess;
const agent = new Agent({ keepAlive: true, maxSockets: 16 });

beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-metrics-flood-'));
  await writeFile(join(dir, 'persons.json'), JSON.stringify(API));
  nats = await startNatsServer();
  // -u -m with no service: the mock answers the GETs, and a client picks its status with `Prefer: code=`.
  gateway = await startGatewayProcess({ api: join(dir, 'persons.json'), natsUrls: nats.url, extra: ['-m'] });
});
afterAll(async () => {
  agent.destroy();
  await gateway?.stop();
  await nats?.dispose();
  await rm(dir, { recursive: true, force: true });
});

function send(method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((done) => {
    const req = request(`http://${gateway.base}${path}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', () => done(0));
    req.end();
  });
}

it('restbus-gateway -u -m keeps /-/metrics within the series its API description bounds after a flood of methods, paths and statuses', async () => {
  const floods: (() => Promise<number>)[] = [];
  for (const method of METHODS.filter((name) => name !== 'CONNECT')) {
    for (let i = 0; i < 10; i++) {
      floods.push(() => send(method, `/persons/p${i}`));
      floods.push(() => send(method, `/elsewhere/${method}/${i}`));
    }
  }
  for (let code = 200; code < 600; code++) floods.push(() => send('GET', '/persons', { prefer: `code=${code}` }));
  const statuses: number[] = [];
  for (let i = 0; i < floods.length; i += 32) {
    statuses.push(...(await Promise.all(floods.slice(i, i + 32).map((flood) => flood()))));
  }
  const text = await (await fetch(`http://${gateway.base}/-/metrics`)).text();
  const series = countRequestSeries(text);
  const { operations } = checkRoutes(await readApiDescription(join(dir, 'persons.json'), { topicPrefix: 'easer' }));
  const bound = requestSeriesBound(operations);
  recordHostileCounts('gateway metrics', {
    tried: { requests: floods.length },
    found: { seriesGrown: Math.max(0, series.total - bound) },
  });
  expect(new Set(statuses).size).toBeGreaterThan(50);
  expect([...series.routes].sort()).toEqual(['/persons', '/persons/{id}', 'unmatched']);
  expect(series.total).toBeLessThanOrEqual(bound);
});
