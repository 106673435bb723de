import type { LoadRun, Outcome } from './cluster-load';
import type { ClusterService, ClusterStack } from './cluster-stack';
import { describeFailures } from './describe-failures';

const STARTED = 1_700_000_000_000;
const trace = (n: number): string => n.toString(16).padStart(32, '0');
const outcome = (n: number, status: number, at: number, ms: number): Outcome => ({
  at,
  kind: 'write',
  status,
  retryAfter: false,
  ms,
  traceId: trace(n),
});
const line = (fields: Record<string, unknown>): string => JSON.stringify(fields);

/** Only the logs of a stack: what describeFailures reads. */
function stackWithLogs(logs: Partial<Record<ClusterService, string[]>>): ClusterStack {
  return { logs: async (service: ClusterService) => (logs[service] ?? []).join('\n') } as unknown as ClusterStack;
}

describe('describeFailures', () => {
  it('says nothing when every request succeeded', async () => {
    const run: LoadRun = { startedAt: STARTED, acknowledged: new Map(), outcomes: [outcome(1, 200, 0, 5)] };
    expect(await describeFailures(stackWithLogs({ 'gateway-1': ['anything'] }), run)).toBe('');
  });

  it("shows each container's lines with a failed request's trace id, and its warnings while it was in flight", async () => {
    const run: LoadRun = {
      startedAt: STARTED,
      acknowledged: new Map(),
      outcomes: [outcome(1, 200, 0, 5), outcome(2, 504, 10_000, 12_000)],
    };
    const stack = stackWithLogs({
      'gateway-1': [
        line({ level: 30, time: STARTED + 22_000, traceId: trace(2), msg: 'request' }),
        line({ level: 30, time: STARTED + 12_000, traceId: trace(1), msg: 'request' }),
        line({ level: 40, time: STARTED + 15_000, msg: 'moved to NATS at nats-3' }),
        line({ level: 40, time: STARTED + 40_000, msg: 'long after' }),
      ],
      'person-service-2': ['not JSON', line({ level: 50, time: STARTED + 9_500, msg: 'store retry' })],
    });
    const text = await describeFailures(stack, run);
    expect(text).toContain(`trace ids ${trace(2)}`);
    expect(text).toContain('gateway-1: 2 lines');
    expect(text).toContain(`"traceId":"${trace(2)}"`);
    expect(text).toContain('moved to NATS at nats-3');
    expect(text).not.toContain(trace(1) + '"');
    expect(text).not.toContain('long after');
    expect(text).toContain('person-service-2: 1 lines');
    expect(text).toContain('store retry');
    expect(text).toContain('gateway-2: 0 lines');
  });
});
