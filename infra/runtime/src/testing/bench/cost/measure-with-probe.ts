import { readFileSync } from 'node:fs';
import { measureCost, type CostReport } from './measure-cost';

/** A cost report of a server in another process, with what its other clients saw. */
export interface ProbedCost {
  report: CostReport;
  /** The longest a probe request waited for its answer while the runs were worked on. */
  stallMs: number;
  /** The most the server's resident memory grew above where it was before the runs. */
  rssGrowthBytes: number;
}

export interface ProbeOptions {
  /** The server's process id, whose resident memory is read from /proc. */
  pid: number;
  /** One small request to the server, resolving once it is answered. */
  probe: () => Promise<unknown>;
  /** Runs per scale; the fastest counts (measureCost). Default 5. */
  repeats?: number;
}

const residentBytes = (pid: number): number =>
  Number(/^VmRSS:\s+(\d+) kB$/m.exec(readFileSync(`/proc/${pid}/status`, 'utf8'))?.[1] ?? 0) * 1024;

/**
 * measureCost against a server in its own process, with a probe beside it: one small request after another, for as
 * long as the runs take. The longest a probe waits is what another client waits while a request is worked on (a
 * measure taken in the test's process would count the test's own work, its client's and its garbage collection
 * instead). Two runs at each scale go first, unmeasured: the first large inputs pay once for compiling the code that
 * handles them (the JIT's optimised code), which is no cost of their size.
 */
export async function measureWithProbe(
  path: string,
  work: (scale: number) => Promise<unknown>,
  options: ProbeOptions,
): Promise<ProbedCost> {
  for (const scale of [1, 8, 1, 8]) await work(scale);
  const { pid } = options;
  const start = residentBytes(pid);
  let stallMs = 0;
  let rssPeak = start;
  let running = true;
  const probing = (async () => {
    while (running) {
      const sent = performance.now();
      await options.probe();
      stallMs = Math.max(stallMs, performance.now() - sent);
      rssPeak = Math.max(rssPeak, residentBytes(pid));
    }
  })();
  try {
    const report = await measureCost(path, work, { repeats: options.repeats ?? 5 });
    return { report, stallMs, rssGrowthBytes: rssPeak - start };
  } finally {
    running = false;
    await probing;
  }
}
