/**
 * Runs `task` one at a time with at most one run waiting: a call while a run is under way queues the next run, and
 * a call while one is queued joins it. Each call resolves (or rejects) with a run that started after it was made,
 * so the last caller always sees what was there when it called; a burst of calls costs two runs, not one each.
 */
export function coalesceRuns<T>(task: () => Promise<T>): () => Promise<T> {
  let running: Promise<T> | undefined;
  let queued: Promise<T> | undefined;

  const start = (): Promise<T> => {
    // Started at once (a task that throws rejects its run), so that `running` is set before anyone else calls.
    const run = new Promise<T>((resolve) => resolve(task())).finally(() => {
      if (running === run) running = undefined;
    });
    running = run;
    return run;
  };

  return () => {
    if (queued) return queued;
    if (!running) return start();
    const next = running
      .catch(() => undefined)
      .then(() => {
        queued = undefined;
        return start();
      });
    queued = next;
    return next;
  };
}
