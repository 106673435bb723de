/** What another client saw while a door was fed its hostile cases. */
export interface StallReport {
  probes: number;
  /** Probes that waited longer than the stall bound. */
  stalls: number;
  maxMs: number;
}

/**
 * Sends one small request after another to the gateway while `work` runs, and reports how long the slowest waited:
 * the event loop held by a hostile case shows as a probe answered late. A probe that fails is a stall of its own
 * kind (the process went), counted by the caller from `alive`.
 */
export async function probeStalls(
  probe: () => Promise<unknown>,
  work: () => Promise<void>,
  boundMs: number,
): Promise<StallReport> {
  const report: StallReport = { probes: 0, stalls: 0, maxMs: 0 };
  let running = true;
  const probing = (async () => {
    while (running) {
      const sent = performance.now();
      await probe().catch(() => undefined);
      const waited = performance.now() - sent;
      report.probes += 1;
      report.maxMs = Math.max(report.maxMs, waited);
      if (waited > boundMs) report.stalls += 1;
      // A pause between probes leaves the core to the work: a probe loop without one measures itself.
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
  })();
  try {
    await work();
  } finally {
    running = false;
    await probing;
  }
  return report;
}
