import { Agent, METHODS, request } from 'node:http';
import { recordHostileCounts } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from '../__tests__/start-test-gateway';
import { countRequestSeries, requestSeriesBound } from '../__tests__/count-request-series';

const OPERATIONS = [
  testEndpoint('get', '/persons', { responses: { '200': { description: 'ok' }, default: { description: 'any' } } }),
  testEndpoint('post', '/persons', { responses: { '201': { description: 'made' }, '422': { description: 'no' } } }),
  testEndpoint('get', '/persons/{personId}', {
    responses: { '200': { description: 'ok' }, '404': { description: 'none' }, default: { description: 'any' } },
  }),
  // 207 and 418 are outside the fixed set: declared, they are counted as themselves.
  testEndpoint('put', '/persons/{personId}', {
    responses: { '207': { description: 'some' }, '418': { description: 'tea' }, '5XX': { description: 'down' } },
  }),
];

let gateway: TestGateway;
const agent = new Agent({ keepAlive: true, maxSockets: 32 });

beforeAll(async () => {
  gateway = await startTestGateway(OPERATIONS, { mock: true });
});
afterAll(async () => {
  agent.destroy();
  await gateway.close();
});

/** Sends one request and waits for its answer to end; the status, or 0 when the server closed without one. */
function send(method: string, path: string, headers: Record<string, string> = {}): Promise<number> {
  return new Promise((done) => {
    const req = request(`${gateway.url}${path}`, { method, headers, agent }, (res) => {
      res.resume();
      res.on('end', () => done(res.statusCode ?? 0));
    });
    req.on('error', () => done(0));
    req.end();
  });
}

async function sendAll(requests: readonly (() => Promise<number>)[]): Promise<number[]> {
  const statuses: number[] = [];
  for (let i = 0; i < requests.length; i += 64) {
    statuses.push(...(await Promise.all(requests.slice(i, i + 64).map((send) => send()))));
  }
  return statuses;
}

async function scrape(): Promise<string> {
  return (await fetch(`${gateway.url}/-/metrics`)).text();
}

// CONNECT is no request Node hands the listener (it is the server's `connect` event).
const METHODS_SENT = METHODS.filter((method) => method !== 'CONNECT');

describe('/-/metrics stays as small as the API description makes it, whatever clients send', () => {
  it('counts a flood of every method, thousands of paths and every status under the series the document bounds', async () => {
    const floods: (() => Promise<number>)[] = [];
    for (let i = 0; i < 40; i++) {
      for (const method of METHODS_SENT) {
        floods.push(() => send(method, `/persons/p${i}`));
        floods.push(() => send(method, `/nowhere/${i}/${method}`));
        if (i === 0) floods.push(() => send(method, '/persons'));
      }
    }
    // Every status a client can ask the mock for: `default` and `5XX` take any code the range allows.
    for (let code = 100; code < 1000; code++) {
      floods.push(() => send('GET', '/persons', { prefer: `code=${code}` }));
      floods.push(() => send('GET', `/persons/p${code}?__code=${code}`));
      floods.push(() => send('PUT', `/persons/p${code}`, { prefer: `code=${code}` }));
    }
    const statuses = await sendAll(floods);
    const text = await scrape();
    const series = countRequestSeries(text);
    const bound = requestSeriesBound(OPERATIONS.map((operation) => operation.model));

    recordHostileCounts('gateway metrics', {
      tried: { requests: floods.length },
      found: { seriesGrown: Math.max(0, series.total - bound) },
    });
    // The flood did reach the gateway: many distinct statuses were answered (a bad status is a 400 of the mock).
    expect(new Set(statuses).size).toBeGreaterThan(50);
    expect(series.total).toBeLessThanOrEqual(bound);
    expect(bound).toBeLessThan(3000);
  });

  it('counts a method no operation on the path declares as `other`, and an unknown path as `unmatched`', async () => {
    expect(await send('PROPFIND', '/persons')).toBe(405);
    expect(await send('PROPFIND', '/nowhere/at/all')).toBe(404);
    const text = await scrape();
    expect(text).not.toMatch(/method="PROPFIND"/);
    expect(text).toMatch(/^restbus_gateway_requests_total\{route="\/persons",method="other",status="405"\} \d+/m);
    expect(text).toMatch(/^restbus_gateway_requests_total\{route="unmatched",method="other",status="404"\} \d+/m);
  });

  it('counts a declared status as itself and an undeclared one outside the fixed set by its class', async () => {
    expect(await send('PUT', '/persons/luke', { prefer: 'code=418' })).toBe(418);
    expect(await send('PUT', '/persons/luke', { prefer: 'code=599' })).toBe(599);
    expect(await send('GET', '/persons', { prefer: 'code=299' })).toBe(299);
    const text = await scrape();
    expect(text).toMatch(
      /^restbus_gateway_requests_total\{route="\/persons\/\{personId\}",method="PUT",status="418"\}/m,
    );
    expect(text).toMatch(
      /^restbus_gateway_requests_total\{route="\/persons\/\{personId\}",method="PUT",status="5xx"\}/m,
    );
    expect(text).toMatch(/^restbus_gateway_requests_total\{route="\/persons",method="GET",status="2xx"\}/m);
    expect(text).not.toMatch(/status="(599|299)"/);
  });
});
