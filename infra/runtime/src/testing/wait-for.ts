export interface WaitForOptions {
  /** What is awaited, for the error: "the move to another node". */
  what: string;
  /**
   * How long before giving up. A deadline, never a measurement: set it at ten times what the wait takes on a quiet
   * machine or more, so that a busy machine never trips it while the code is right.
   */
  timeoutMs?: number;
  /** How often the check runs. */
  everyMs?: number;
}

/**
 * Resolves once `check` returns (or resolves to) true; rejects with "<what> did not happen within N ms" when the
 * deadline's timer fires first. The deadline is a timer, not a clock read: tests hold no clock (see
 * e2e/src/timing-guard.test.ts), so a busy machine can only make a wait longer, never make a check fail.
 */
export async function waitFor(
  check: () => boolean | Promise<boolean>,
  { what, timeoutMs = 60_000, everyMs = 20 }: WaitForOptions,
): Promise<void> {
  let expired = false;
  const deadline = setTimeout(() => {
    expired = true;
  }, timeoutMs);
  try {
    for (;;) {
      if (await Promise.resolve(check()).catch(() => false)) return;
      if (expired) throw new Error(`${what} did not happen within ${timeoutMs} ms`);
      await new Promise((resolve) => setTimeout(resolve, everyMs));
    }
  } finally {
    clearTimeout(deadline);
  }
}
