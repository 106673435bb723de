import { measureCost } from './measure-cost';

const hold = (ms: number): void => {
  const until = performance.now() + ms;
  while (performance.now() < until);
};

describe('measureCost', () => {
  it('sees a stall of the event loop that ends just before the work does', async () => {
    const report = await measureCost('a stall at the end', () => hold(60), { scales: [1], repeats: 1 });
    expect(report.runs[0].maxLoopDelayMs).toBeGreaterThanOrEqual(40);
  });

  it('reports a time ratio near the scale for work linear in its input, far above it for quadratic work', async () => {
    const spin = (units: number) => hold(units * 3);
    const linear = await measureCost('linear', (scale) => spin(scale), { repeats: 2 });
    const quadratic = await measureCost('quadratic', (scale) => spin(scale * scale), {
      scales: [1, 4],
      repeats: 2,
    });
    expect(linear.timeRatio).toBeLessThan(10);
    expect(quadratic.timeRatio).toBeGreaterThan(10);
  });

  it('measures the scales in turn, so that a burst of other work slows some runs of each rather than all of one', async () => {
    const calls: number[] = [];
    await measureCost('in turn', (scale) => calls.push(scale), { scales: [1, 8], repeats: 3 });
    // One unmeasured warm-up at the smallest scale, then 1x and 8x alternating.
    expect(calls).toEqual([1, 1, 8, 1, 8, 1, 8]);
  });

  it('keeps the fastest run of each scale, with the worst stall and heap growth of all its runs', async () => {
    const times: Record<number, number[]> = { 1: [0, 9, 1, 1], 8: [30, 8, 20] };
    const report = await measureCost('fastest', (scale) => hold(times[scale].shift() ?? 0), {
      scales: [1, 8],
      repeats: 3,
    });
    expect(report.runs[1].ms).toBeGreaterThanOrEqual(8);
    expect(report.runs[1].ms).toBeLessThan(20);
    expect(report.runs[1].maxLoopDelayMs).toBeGreaterThanOrEqual(15);
  });
});
