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

  it('counts every answer other than 2xx as failed: a 404 for a person written before is a lost write', () => {
    const summary = summariseSoak(
      [
        { minute: 1, status: 404, retryAfter: false },
        { minute: 2, status: 429, retryAfter: true },
        { minute: 3, status: 201, retryAfter: false },
      ],
      [],
      [],
    );
    expect(summary).toMatchObject({ requests: 3, errors: 2, errorsOutsideFaults: 2 });
    expect(summary.outside.statuses).toEqual({ '404': 1, '429': 1 });
  });

  it('gives each fault window its calls, failed calls by status and how many failures carried Retry-After', () => {
    const summary = summariseSoak(
      [
        { minute: 0.5, status: 200, retryAfter: false, ms: 100 },
        // Sent a moment before the window opened and answered inside it: the fault's, not the quiet time's.
        { minute: 0.99, status: 504, retryAfter: false, ms: 12_000 },
        { minute: 1.5, status: 200, retryAfter: false, ms: 100 },
        { minute: 1.6, status: 503, retryAfter: true, ms: 100 },
        { minute: 3.2, status: 200, retryAfter: false, ms: 100 },
        { minute: 3.4, status: 0, retryAfter: false, ms: 15_000 },
        { minute: 5, status: 200, retryAfter: false, ms: 100 },
      ],
      [],
      [
        { label: 'rolling restart 1', from: 1, to: 2 },
        { label: 'rolling restart 2', from: 3, to: 4 },
      ],
    );
    expect(summary.windows).toEqual([
      {
        label: 'rolling restart 1',
        from: 1,
        to: 2,
        calls: 3,
        failed: 2,
        statuses: { '503': 1, '504': 1 },
        withRetryAfter: 1,
        p99Ms: 12_000,
      },
      {
        label: 'rolling restart 2',
        from: 3,
        to: 4,
        calls: 2,
        failed: 1,
        statuses: { '0': 1 },
        withRetryAfter: 0,
        p99Ms: 15_000,
      },
    ]);
    expect(summary.outside).toEqual({ calls: 2, failed: 0, statuses: {}, p99Ms: 100 });
    expect(summary.errorsOutsideFaults).toBe(0);
  });

  it("gives each process's growth from the minute after the warm-up to the last, by the minute's median", () => {
    const samples = [5, 5.25, 5.5, 5.75, 19.25, 19.5, 19.75, 20].map((minute, index) => ({
      minute,
      process: 'gateway-1',
      // One outlier each minute (a collection about to run) does not move the median.
      rss: index === 1 ? 500 : index < 4 ? 100 : index === 6 ? 900 : 105,
    }));
    const { growth } = summariseSoak([], samples, []);
    expect(growth).toEqual([
      { process: 'gateway-1', metric: 'rss', start: 100, end: 105, percent: 5, restarted: false },
    ]);
  });

  it('measures heap by its lowest sample over 5 minutes at each end: garbage waiting for a collection is no growth', () => {
    // A sawtooth of 4 minutes: climbs from 20 MiB to 26.75 MiB between full collections, neither end minute at its floor.
    const samples = Array.from({ length: 25 * 4 + 1 }, (_, i) => 5 + i / 4).map((minute) => ({
      minute,
      process: 'gateway-2',
      heap: 20 + ((minute - 4) % 4) * 2.25 + (minute >= 25 ? 0.5 : 0),
    }));
    const [heap] = summariseSoak([], samples, []).growth;
    expect(heap).toMatchObject({ metric: 'heap', start: 20, end: 20.5, percent: 2.5 });
  });

  it('leaves samples taken in a fault window out of the growth: the first minute measured is the first whole one', () => {
    const samples = [5, 5.25, 5.5, 5.75, 6, 6.25, 6.5, 6.75, 19.5, 20].map((minute) => ({
      minute,
      process: 'nats-1',
      // Clients of a killed node arrive on nats-1 during the fault and leave it again.
      subscriptions: minute < 5.9 ? 212 : 300,
    }));
    const [subscriptions] = summariseSoak([], samples, [{ label: 'nats-3 killed', from: 5, to: 5.9 }]).growth;
    expect(subscriptions).toMatchObject({ start: 300, end: 300, percent: 0 });
  });

  it('marks the growth of a process that a fault restarted between the two ends: a fresh process says nothing', () => {
    const samples = [5, 5.5, 19.5, 20].flatMap((minute) => [
      { minute, process: 'nats-1', rss: minute < 10 ? 100 : 50 },
      { minute, process: 'nats-2', rss: 100 },
    ]);
    const { growth } = summariseSoak([], samples, [
      { label: 'nats-1 killed', from: 10, to: 11, restarted: ['nats-1'] },
    ]);
    expect(growth.map(({ process, restarted }) => ({ process, restarted }))).toEqual([
      { process: 'nats-1', restarted: true },
      { process: 'nats-2', restarted: false },
    ]);
  });

  it("gives the highest KV lag seen, where and when, and each node's lag at the end", () => {
    const samples = [
      { minute: 1, process: 'nats-1', kvLag: 0 },
      { minute: 1, process: 'nats-2', kvLag: 3 },
      { minute: 2, process: 'nats-2', kvLag: 40 },
      { minute: 2, process: 'nats-3', kvLag: 0 },
      { minute: 3, process: 'nats-1', kvLag: 0 },
      { minute: 3, process: 'nats-2', kvLag: 0 },
      { minute: 3, process: 'nats-3', kvLag: 1 },
    ];
    expect(summariseSoak([], samples, []).kvLag).toEqual({
      max: 40,
      process: 'nats-2',
      minute: 2,
      atEnd: { 'nats-1': 0, 'nats-2': 0, 'nats-3': 1 },
    });
  });
});
