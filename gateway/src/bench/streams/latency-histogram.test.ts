import { createLatencyHistogram } from './latency-histogram';

describe('createLatencyHistogram', () => {
  it('gives the latency below which a share of the recorded ones fall, to 10 µs', () => {
    const histogram = createLatencyHistogram();
    for (let ms = 1; ms <= 100; ms++) histogram.record(ms - 0.005);
    expect(histogram.quantile(0.5)).toBeCloseTo(50, 1);
    expect(histogram.quantile(0.99)).toBeCloseTo(99, 1);
    expect(histogram.max()).toBeCloseTo(99.995, 3);
    expect(histogram.count()).toBe(100);
  });

  it('keeps the slowest latencies in its last bucket and their exact maximum', () => {
    const histogram = createLatencyHistogram();
    histogram.record(1);
    histogram.record(25_000);
    expect(histogram.quantile(1)).toBe(10_000);
    expect(histogram.max()).toBe(25_000);
  });

  it('has no quantile before anything is recorded', () => {
    expect(createLatencyHistogram().quantile(0.5)).toBeNaN();
  });
});
