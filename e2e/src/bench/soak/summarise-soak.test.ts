import { summariseSoak } from './summarise-soak';

describe('summariseSoak', () => {
  it('counts errors outside the fault windows apart, and those in them that a retry would not have met', () => {
    const summary = summariseSoak(
      [
        { minute: 1, status: 200, retryAfter: false },
        { minute: 2, status: 0, retryAfter: false },
        { minute: 6.5, status: 503, retryAfter: true },
        { minute: 7, status: 500, retryAfter: false },
        { minute: 9, status: 503, retryAfter: true },
      ],
      [],
      [{ label: 'nats-2 killed', from: 6, to: 8 }],
    );
    expect(summary).toMatchObject({
      requests: 5,
      errors: 4,
      errorsOutsideFaults: 2,
      faultErrorsWithoutRetryAfter: 1,
    });
  });

  it("gives each process's growth from the minute after the warm-up to the last, by the minute's median", () => {
    const samples = [5, 5.25, 5.5, 5.75, 19.25, 19.5, 19.75, 20].map((minute, index) => ({
      minute,
      process: 'gateway-1',
      // One outlier each minute (a collection about to run) does not move the median.
      rss: index === 1 ? 500 : index < 4 ? 100 : index === 6 ? 900 : 105,
    }));
    const { growth } = summariseSoak([], samples, []);
    expect(growth).toEqual([{ process: 'gateway-1', metric: 'rss', start: 100, end: 105, percent: 5 }]);
  });
});
