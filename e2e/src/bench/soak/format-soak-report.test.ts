import { formatSoakReport } from './format-soak-report';
import { summariseSoak } from './summarise-soak';

const MIB = 1024 * 1024;

describe('formatSoakReport', () => {
  const samples = [5, 5.5, 19.5, 20].flatMap((minute) => [
    {
      minute,
      process: 'gateway-1',
      rss: (minute < 10 ? 100 : 125) * MIB,
      heap: 30 * MIB,
      handles: minute < 10 ? 8 : 10,
    },
    { minute, process: 'nats-2', rss: (minute < 10 ? 20 : 40) * MIB, subscriptions: 300 },
    { minute, process: 'person-service ABCDE', heap: (minute < 10 ? 30 : 20) * MIB },
    { minute, process: 'nats-3', kvLag: minute === 5.5 ? 17 : 0 },
  ]);
  const faults = [
    { label: 'rolling restart 1', from: 2, to: 3, restarted: ['nats-1', 'nats-2', 'nats-3'] },
    { label: 'rolling restart 2', from: 10, to: 11, restarted: ['nats-1', 'nats-2', 'nats-3'] },
  ];
  const outcomes = [
    { minute: 1, status: 200, retryAfter: false, ms: 10 },
    { minute: 2.5, status: 503, retryAfter: true, ms: 10 },
    { minute: 10.5, status: 200, retryAfter: false, ms: 10 },
    { minute: 12, status: 502, retryAfter: false, ms: 10 },
  ];
  const report = formatSoakReport({
    heading: '20 minutes at 40 requests/s',
    summary: summariseSoak(outcomes, samples, faults),
    lost: 0,
    fromMinute: 5,
  });

  it('gives the calls and failures outside the fault windows first, by status', () => {
    expect(report).toContain('outside the fault windows: 2 calls, 1 failed (502 ×1), p99 10 ms');
  });

  it('gives one line per fault window with its calls, failures by status, Retry-After and p99', () => {
    expect(report).toMatch(/ 1 +rolling restart 1 +2\.0–3\.0 +1 +1 +503 ×1 +1 of 1 +10\n/);
    expect(report).toMatch(/ 2 +rolling restart 2 +10\.0–11\.0 +1 +0 +- +- +10\n/);
  });

  it('gives every process its growth in MiB and %, marks 10 % or more, and notes a restart between the ends', () => {
    expect(report).toMatch(/gateway-1 +rss +100\.0 → 125\.0 MiB +\+25\.0 % +<- 10 % or more\n/);
    expect(report).toMatch(/gateway-1 +heap +30\.0 → 30\.0 MiB +\+0\.0 %\n/);
    expect(report).toMatch(/nats-2 +rss +20\.0 → 40\.0 MiB +\+100\.0 % +restarted in between, not a leak\n/);
    expect(report).toMatch(/nats-2 +subscriptions +300 → 300 +\+0\.0 %/);
  });

  it('gives the highest KV lag, where and when, and the lag of each node at the end', () => {
    expect(report).toContain(
      'KV_persons replica lag: at most 17 operations (nats-3 at minute 5.5); at the end nats-3 0',
    );
  });

  it('does not count a shrink as growth: memory given back is no leak', () => {
    expect(report).toMatch(/person-service ABCDE +heap +30\.0 → 20\.0 MiB +-33\.3 %\n/);
  });

  it('shows growing handles without marking them: the bar is on memory, which handles and subscriptions explain', () => {
    expect(report).toMatch(/gateway-1 +handles +8 → 10 +\+25\.0 %\n/);
  });

  it('ends with the verdict against the bars: errors outside the windows, failed calls in them, growth', () => {
    expect(report).toContain('errors outside the fault windows: 1 (bar 0)  FAIL');
    expect(report).toContain('failed calls in fault windows: 1, all 503 with Retry-After');
    expect(report).toContain(
      'memory (RSS, heap) grown 10 % or more from minute 5 (not restarted): gateway-1 rss  FAIL',
    );
  });

  it('bars the heap on its live data where a process tells it: in use after a full collection, not the garbage', () => {
    // Heap in use sampled between collections swings with the garbage; the live heap (after each full one) does not.
    const swinging = [5, 5.5, 19.5, 20].map((minute) => ({
      minute,
      process: 'person-service-1',
      heap: (minute < 10 ? 14 : 17) * MIB,
      heapLive: (minute < 10 ? 12 : 12.4) * MIB,
      heapTotal: (minute < 10 ? 30 : 60) * MIB,
    }));
    const barred = formatSoakReport({
      heading: '20 minutes at 40 requests/s',
      summary: summariseSoak([], swinging, []),
      lost: 0,
      fromMinute: 5,
    });
    expect(barred).toMatch(/person-service-1 +heap +14\.0 → 17\.0 MiB +\+21\.4 %\n/);
    expect(barred).toMatch(/person-service-1 +heapLive +12\.0 → 12\.4 MiB +\+3\.3 %\n/);
    expect(barred).toMatch(/person-service-1 +heapTotal +30\.0 → 60\.0 MiB +\+100\.0 %\n/);
    expect(barred).toContain('memory (RSS, heap) grown 10 % or more from minute 5 (not restarted): none  ok');
    const grownLive = swinging.map((sample) => ({
      ...sample,
      heapLive: sample.heapLive * (sample.minute < 10 ? 1 : 1.5),
    }));
    expect(
      formatSoakReport({
        heading: '20 minutes at 40 requests/s',
        summary: summariseSoak([], grownLive, []),
        lost: 0,
        fromMinute: 5,
      }),
    ).toContain('memory (RSS, heap) grown 10 % or more from minute 5 (not restarted): person-service-1 heapLive  FAIL');
  });

  it('fails the memory bar when nothing was measured, rather than passing a soak too short to tell', () => {
    const short = formatSoakReport({
      heading: '3 minutes at 40 requests/s',
      summary: summariseSoak(
        [],
        [1.5, 2, 2.5, 3].map((minute) => ({ minute, process: 'gateway-1', rss: MIB })),
        [],
      ),
      lost: 0,
      fromMinute: 1.5,
    });
    expect(short).toContain(
      'memory (RSS, heap): not measured, fewer than 2 minutes outside fault windows from minute 1.5  FAIL',
    );
  });
});
