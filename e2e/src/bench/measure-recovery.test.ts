import type { Outcome } from '../cluster-load';
import { measureRecovery } from './measure-recovery';

/** Ten requests a second for `seconds`, each answered 200 in `ms(second)` unless `failed(second)` says otherwise. */
function run(seconds: number, ms: (second: number) => number, failed: (second: number) => boolean = () => false) {
  const outcomes: Outcome[] = [];
  for (let second = 0; second < seconds; second++)
    for (let i = 0; i < 10; i++)
      outcomes.push({
        at: second * 1000 + i * 100,
        kind: i % 2 ? 'write' : 'read',
        status: failed(second) && i === 1 ? 503 : 200,
        retryAfter: failed(second) && i === 1,
        ms: ms(second),
        traceId: (second * 10 + i).toString(16).padStart(32, '0'),
      });
  return outcomes;
}

describe('measureRecovery', () => {
  it('counts from the fault to the start of the first second after which every second is error-free and fast', () => {
    // Fault at 5.2 s; errors in seconds 5 and 6, slow answers in seconds 6 to 8; healthy from second 9 on.
    const outcomes = run(
      15,
      (second) => (second >= 6 && second <= 8 ? 400 : 20),
      (second) => second === 5 || second === 6,
    );
    expect(measureRecovery(outcomes, 5200)).toEqual({
      beforeP99: 20,
      recoveredAfterMs: 9000 - 5200,
      firstHealthyAfterMs: 9000 - 5200,
    });
  });

  it('does not count a healthy second followed by a bad one as recovered, but reports it as the first healthy', () => {
    const outcomes = run(
      12,
      () => 20,
      (second) => second === 5 || second === 8,
    );
    expect(measureRecovery(outcomes, 5000)).toMatchObject({ recoveredAfterMs: 4000, firstHealthyAfterMs: 1000 });
  });

  it('reports 0 when the fault never showed, and nothing when the run ended unhealthy', () => {
    const unharmed = run(10, () => 20);
    expect(measureRecovery(unharmed, 5000)).toEqual({ beforeP99: 20, recoveredAfterMs: 0, firstHealthyAfterMs: 0 });
    const broken = run(
      10,
      () => 20,
      (second) => second >= 5,
    );
    expect(measureRecovery(broken, 5000)).toEqual({ beforeP99: 20 });
  });
});
