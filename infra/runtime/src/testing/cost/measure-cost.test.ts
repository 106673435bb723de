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
});
