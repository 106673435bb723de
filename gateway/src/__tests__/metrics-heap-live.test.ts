import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

/**
 * The live-heap metric is exported, named and explained; how it follows data held and not garbage is a figure, shown
 * by `npm run bench:cost` (gateway/src/bench/cost/main.ts), which holds 15 MiB and reads the metric after a full
 * collection.
 */

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway([testEndpoint('get', '/persons')]);
});
afterAll(() => gateway.close());

describe('/-/metrics tells the live heap, for a long run to tell a leak from garbage', () => {
  it('exports restbus_gateway_nodejs_heap_live_bytes as a gauge, with its help, whose value is a number of bytes', async () => {
    const response = await fetch(`${gateway.url}/-/metrics`);
    expect(response.status).toBe(200);
    const text = await response.text();
    expect(text).toContain(
      '# HELP restbus_gateway_nodejs_heap_live_bytes Heap in use just after the last full garbage collection: the data the process holds (0 before the first)',
    );
    expect(text).toContain('# TYPE restbus_gateway_nodejs_heap_live_bytes gauge');
    const value = /^restbus_gateway_nodejs_heap_live_bytes (\S+)$/m.exec(text)?.[1];
    expect(value).toMatch(/^\d+$/);
    expect(Number(value)).toBeGreaterThanOrEqual(0);
  });
});
