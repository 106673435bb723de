import { parseMemUsage, readKvLag, readMetric } from './read-samples';

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

describe('reading the KV lag', () => {
  const jsz = (leader: string, replicas: Array<{ name: string; lag?: number }>): unknown => ({
    account_details: [{ stream_detail: [{ name: 'KV_other' }, { name: 'KV_persons', cluster: { leader, replicas } }] }],
  });

  it("takes every node's lag from the leader's own view: a follower's view of its peers is stale", () => {
    const views = new Map<string, unknown>([
      // The follower nats-2 sees itself nowhere and the others far behind; the leader says otherwise.
      [
        'nats-2',
        jsz('nats-1', [
          { name: 'nats-1', lag: 2531 },
          { name: 'nats-3', lag: 2531 },
        ]),
      ],
      // The leader leaves lag out where it is 0.
      ['nats-1', jsz('nats-1', [{ name: 'nats-2' }, { name: 'nats-3', lag: 12 }])],
    ]);
    expect(Object.fromEntries(readKvLag(views, 'KV_persons'))).toEqual({ 'nats-1': 0, 'nats-2': 0, 'nats-3': 12 });
  });

  it('gives nothing during an election, when no node that answered leads the stream', () => {
    const views = new Map<string, unknown>([['nats-2', jsz('nats-1', [{ name: 'nats-3', lag: 5 }])]]);
    expect(readKvLag(views, 'KV_persons').size).toBe(0);
  });
});
