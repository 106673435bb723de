import { createResendPolicy } from './resend-policy';

describe('the resend policy', () => {
  const policy = createResendPolicy(12_000);

  it.each(['get', 'head', 'put', 'delete', 'options', 'trace'] as const)(
    'sends a %s call again on reconnect and hedges it at half its timeout',
    (method) => {
      expect(policy.resendFor(method)).toEqual({ retryable: true, hedgeAfterMs: 6000 });
    },
  );

  it.each(['post', 'patch'] as const)('never sends a %s call twice on its own', (method) => {
    expect(policy.resendFor(method)).toEqual({ retryable: false, hedgeAfterMs: undefined });
  });

  it('waits with doubling pauses for a recently served subject whose service is moving', () => {
    const pauses = [0, 1, 2, 3].map((attempt) =>
      policy.pauseAfterNoResponder({ attempt, elapsedMs: 0, sinceServedMs: 50 }),
    );
    expect(pauses).toEqual([25, 50, 100, 200]);
  });

  it('gives up at once on a subject nobody has answered for ten seconds or more', () => {
    expect(policy.pauseAfterNoResponder({ attempt: 0, elapsedMs: 0, sinceServedMs: 10_000 })).toBeUndefined();
    expect(policy.pauseAfterNoResponder({ attempt: 0, elapsedMs: 0, sinceServedMs: Infinity })).toBeUndefined();
  });

  it('gives up when the next pause would pass one second of waiting, or the call timeout if shorter', () => {
    expect(policy.pauseAfterNoResponder({ attempt: 2, elapsedMs: 901, sinceServedMs: 0 })).toBeUndefined();
    expect(policy.pauseAfterNoResponder({ attempt: 2, elapsedMs: 900, sinceServedMs: 0 })).toBe(100);
    const short = createResendPolicy(200);
    expect(short.pauseAfterNoResponder({ attempt: 2, elapsedMs: 150, sinceServedMs: 0 })).toBeUndefined();
    expect(short.failoverWaitMs).toBe(200);
  });
});
