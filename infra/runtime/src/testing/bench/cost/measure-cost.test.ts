import { mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describeCost, recordCost, scheduleRuns, summarizeCost, type CostReport, type CostRun } from './measure-cost';

// The clock and heap readings of a cost measure are a benchmark's business: these test its verdicts on given figures.
const run = (scale: number, ms: number, maxLoopDelayMs = 0, heapGrowthBytes = 0): CostRun => ({
  scale,
  ms,
  maxLoopDelayMs,
  heapGrowthBytes,
});

describe('a cost report', () => {
  it('measures the scales in turn, so that a burst of other work slows some runs of each rather than all of one', () => {
    expect(scheduleRuns([1, 8], 3)).toEqual([1, 8, 1, 8, 1, 8]);
    expect(scheduleRuns([1, 4, 16], 2)).toEqual([1, 4, 16, 1, 4, 16]);
  });

  it('keeps the fastest run of each scale, with the worst stall and heap growth of all its runs', () => {
    const measured = [run(1, 9, 1, 10), run(8, 30, 2, 500), run(1, 1, 3, 20), run(8, 8, 1, 100), run(8, 20, 15, 300)];
    const report = summarizeCost('fastest', [1, 8], measured, 0);
    expect(report.runs).toEqual([run(1, 1, 3, 20), run(8, 8, 15, 500)]);
  });

  it('reports a time ratio near the scale for linear figures and far above it for quadratic ones', () => {
    const linear = summarizeCost('linear', [1, 8], [run(1, 4), run(8, 32)], 2);
    expect([linear.timeRatio, linear.growth]).toEqual([8, 1]);
    const quadratic = summarizeCost('quadratic', [1, 8], [run(1, 4), run(8, 256)], 2);
    expect([quadratic.timeRatio, quadratic.growth]).toEqual([64, 8]);
  });

  it('raises a run too short to compare to the floor before taking the ratio', () => {
    const report = summarizeCost('short', [1, 8], [run(1, 0.1), run(8, 1.6)], 2);
    expect([report.timeRatio, report.growth]).toEqual([0.8, 0.1]);
  });

  it('refuses to summarize a scale that has no run', () => {
    expect(() => summarizeCost('missing', [1, 8], [run(1, 3)], 2)).toThrow('no run at scale 8');
  });
});

describe('describeCost and recordCost', () => {
  const report: CostReport = {
    path: 'POST /items',
    runs: [run(1, 3.04, 1.2, 1048576), run(8, 25.55, 7.6, 3 * 1048576)],
    timeRatio: 8.4,
    growth: 1.05,
  };
  const line = 'POST /items: 1x 3.0 ms, heap +1.0 MB, stall 1 ms; 8x 25.6 ms, heap +3.0 MB, stall 8 ms; time ratio 8.4';

  it('writes a report as one line: each scale with its time, heap growth and stall, then the ratio', () => {
    expect(describeCost(report)).toBe(line);
  });

  it('records the line for the run summary in the file RESTBUS_HOSTILE_LOG names, and nothing without one', () => {
    const saved = process.env.RESTBUS_HOSTILE_LOG;
    const dir = mkdtempSync(join(tmpdir(), 'record-cost-'));
    const file = join(dir, 'log.jsonl');
    try {
      delete process.env.RESTBUS_HOSTILE_LOG;
      recordCost('nowhere', report);
      process.env.RESTBUS_HOSTILE_LOG = file;
      recordCost('infra', report);
      expect(readFileSync(file, 'utf8')).toBe(`${JSON.stringify({ suite: 'infra', cost: line })}\n`);
    } finally {
      if (saved === undefined) delete process.env.RESTBUS_HOSTILE_LOG;
      else process.env.RESTBUS_HOSTILE_LOG = saved;
      rmSync(dir, { recursive: true, force: true });
    }
  });
});
