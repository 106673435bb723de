import { parseMemUsage, readMetric } from './read-samples';

describe('reading the soak samples', () => {
  it("reads docker stats' memory in use in its units", () => {
    expect(parseMemUsage('12.5MiB / 23.4GiB')).toBe(Math.round(12.5 * 1024 * 1024));
    expect(parseMemUsage('900KiB / 1GiB')).toBe(900 * 1024);
    expect(parseMemUsage('1.2GB / 2GB')).toBe(1_200_000_000);
    expect(parseMemUsage('--')).toBeUndefined();
  });

  it('reads an unlabelled metric and nothing of a longer name', () => {
    const metrics =
      '# HELP x\nrestbus_gateway_nodejs_heap_size_used_bytes 1234\nrestbus_gateway_nodejs_heap_size_used_bytes_total 9\n';
    expect(readMetric(metrics, 'restbus_gateway_nodejs_heap_size_used_bytes')).toBe(1234);
    expect(readMetric(metrics, 'restbus_gateway_missing')).toBeUndefined();
  });
});
