import { collectGarbageObserved } from '@restbus/infra/testing';
import { startTestGateway, testEndpoint, type TestGateway } from './start-test-gateway';

let gateway: TestGateway;

beforeAll(async () => {
  gateway = await startTestGateway([testEndpoint('get', '/persons')]);
});
afterAll(() => gateway.close());

const readLiveHeap = async (): Promise<number> => {
  const text = await (await fetch(`${gateway.url}/-/metrics`)).text();
  return Number(/^restbus_gateway_nodejs_heap_live_bytes (\S+)$/m.exec(text)?.[1]);
};

describe('/-/metrics tells the live heap, for a long run to tell a leak from garbage', () => {
  it('gives the heap in use after the last full collection, which grows with data held and not with garbage', async () => {
    const afterCollection = async (): Promise<number> => {
      await collectGarbageObserved();
      return readLiveHeap();
    };
    const before = await afterCollection();
    let held: number[][] | undefined = Array.from({ length: 200 }, () => Array.from({ length: 10_000 }, (_, i) => i));
    const holding = await afterCollection();
    expect(held).toHaveLength(200);
    held = undefined;
    expect(before).toBeGreaterThan(1024 * 1024);
    // 200 arrays of 10,000 small integers: some 15 MiB.
    expect(holding - before).toBeGreaterThan(12 * 1024 * 1024);
  });
});
