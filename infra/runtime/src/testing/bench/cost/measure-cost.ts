import { monitorEventLoopDelay } from 'node:perf_hooks';
import { appendFileSync } from 'node:fs';

/** One measured run of a request path at one input size. */
export interface CostRun {
  /** How many times the base input the run was given (1, 8). */
  scale: number;
  /** Wall time of the run, the best of its repeats (the least disturbed by the other core's work). */
  ms: number;
  /** The most the process's heap grew during a run, sampled every few milliseconds, in bytes. */
  heapGrowthBytes: number;
  /** The longest the event loop was held during the run: what another client would have waited. */
  maxLoopDelayMs: number;
}

/** How a request path's cost grows with its input: linear paths stay near 1 at every scale. */
export interface CostReport {
  path: string;
  runs: CostRun[];
  /** Time per unit of input at the largest scale over the same at scale 1 (8x input, 8x time: growth 1). */
  growth: number;
  /** The largest time ratio between the largest and the smallest scale. */
  timeRatio: number;
}

export interface MeasureCostOptions {
  /** Input sizes, as multiples of the base input. Default [1, 8]. */
  scales?: number[];
  /** Runs per scale; the fastest counts. Default 3. */
  repeats?: number;
  /**
   * Runs whose time is below this are too short to compare (timer noise dominates): the 1x run's time is raised to
   * it before the ratio is taken. Default 2 ms.
   */
  floorMs?: number;
}

/**
 * Measures a request path at growing input sizes: `work(scale)` sends (or processes) an input `scale` times the base
 * size and resolves once it is answered. Used by the cost benchmarks: a path whose time grows much faster than
 * its input (quadratic validation, unbounded sampling) shows as a large `timeRatio`; one that holds the loop (a
 * synchronous step over a large input) as a large `maxLoopDelayMs`. Works on servers that run in this process; for a
 * server in a child process, measure its stall as the latency of a probe request sent while `work` runs.
 */
export async function measureCost(
  path: string,
  work: (scale: number) => unknown,
  options: MeasureCostOptions = {},
): Promise<CostReport> {
  const scales = options.scales ?? [1, 8];
  const repeats = options.repeats ?? 3;
  const floorMs = options.floorMs ?? 2;
  // One unmeasured run at the smallest scale: the first call pays for compiling and caches, not for its input.
  await work(scales[0]);
  const measured: CostRun[] = [];
  for (const scale of scheduleRuns(scales, repeats)) measured.push(await measureOnce(scale, work));
  return summarizeCost(path, scales, measured, floorMs);
}

/**
 * The scales of the measured runs, in the order they run: the scales take turns (1x, 8x, 1x, 8x …) rather than all
 * repeats of one scale and then the next: a burst of the other core's work then slows some runs of each scale, not
 * every run of the larger one, whose best would then be its slowest-looking and the ratio a measure of the burst (a
 * CI run under the e2e stacks: over 16).
 */
export function scheduleRuns(scales: number[], repeats: number): number[] {
  return Array.from({ length: repeats }, () => scales).flat();
}

/**
 * The report of measured runs: for each scale its fastest run (the least disturbed), carrying the worst stall and
 * heap growth of all its runs; the time ratio of the largest scale to the smallest, the smallest's time raised to
 * `floorMs` first (a run shorter than that is timer noise), and that ratio per unit of input (`growth`).
 */
export function summarizeCost(path: string, scales: number[], measured: CostRun[], floorMs: number): CostReport {
  const runs = scales.map((scale): CostRun => {
    const own = measured.filter((run) => run.scale === scale);
    if (own.length === 0) throw new Error(`no run at scale ${scale}`);
    const fastest = own.reduce((best, run) => (run.ms < best.ms ? run : best));
    return {
      ...fastest,
      maxLoopDelayMs: Math.max(...own.map((run) => run.maxLoopDelayMs)),
      heapGrowthBytes: Math.max(...own.map((run) => run.heapGrowthBytes)),
    };
  });
  const first = runs[0];
  const last = runs[runs.length - 1];
  const timeRatio = last.ms / Math.max(first.ms, floorMs);
  return { path, runs, timeRatio, growth: timeRatio / (last.scale / first.scale) };
}

/** How often the event-loop delay is sampled. */
const LOOP_RESOLUTION_MS = 5;

async function measureOnce(scale: number, work: (scale: number) => unknown): Promise<CostRun> {
  const delay = monitorEventLoopDelay({ resolution: LOOP_RESOLUTION_MS });
  const heapAtStart = process.memoryUsage().heapUsed;
  let heapPeak = heapAtStart;
  const sampler = setInterval(() => {
    heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  }, 5);
  delay.enable();
  // The histogram measures each tick from the one before: its first tick only sets where it starts from, so the
  // work waits for it (a stall at once read as none).
  await new Promise((resolve) => setTimeout(resolve, LOOP_RESOLUTION_MS + 1));
  const started = process.hrtime.bigint();
  let ms = 0;
  try {
    await work(scale);
    ms = Number(process.hrtime.bigint() - started) / 1e6;
    // The histogram records a stall when its timer finally fires, after the stall: one more tick lets it see the
    // last one (a stall just before the answer arrived read as none).
    await new Promise((resolve) => setTimeout(resolve, 2 * LOOP_RESOLUTION_MS));
  } finally {
    delay.disable();
    clearInterval(sampler);
  }
  heapPeak = Math.max(heapPeak, process.memoryUsage().heapUsed);
  // The histogram counts the timer's own resolution into every delay.
  const maxLoopDelayMs = Math.max(0, delay.max / 1e6 - LOOP_RESOLUTION_MS);
  return { scale, ms, heapGrowthBytes: Math.max(0, heapPeak - heapAtStart), maxLoopDelayMs };
}

/** A cost report as one line: the path, each scale's time, heap growth and longest stall, the ratio. */
export function describeCost(report: CostReport): string {
  const runs = report.runs
    .map(
      (run) =>
        `${run.scale}x ${run.ms.toFixed(1)} ms, heap +${(run.heapGrowthBytes / 1048576).toFixed(1)} MB, stall ${run.maxLoopDelayMs.toFixed(0)} ms`,
    )
    .join('; ');
  return `${report.path}: ${runs}; time ratio ${report.timeRatio.toFixed(1)}`;
}

/**
 * Records a cost report for the run's closing summary (infra/jest/summary-reporter.js prints it beside the hostile
 * counts). The file is named by RESTBUS_HOSTILE_LOG, which the jest global setup sets; outside jest it does nothing.
 */
export function recordCost(suite: string, report: CostReport): void {
  const file = process.env.RESTBUS_HOSTILE_LOG;
  if (!file) return;
  appendFileSync(file, `${JSON.stringify({ suite, cost: describeCost(report) })}\n`);
}
