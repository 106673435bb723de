/** How often the parent is looked for: the port is free again within a second or so of the wrapper's end. */
const CHECK_MS = 500;

export interface StopWithParentOptions {
  /** The environment the program was started with: only a package manager's start is watched. */
  env: NodeJS.ProcessEnv;
  /** The parent's pid now (`process.ppid`, read anew each time). */
  parentPid: () => number;
  /** Called once, when the parent has gone: stop as on SIGTERM. */
  onParentGone: () => void;
  checkMs?: number;
}

/**
 * npm, pnpm and yarn set these for what they start (`npx`, `npm exec`, `npm start`, `npm run`): `npm_command`
 * (`exec`, `run-script`, `start`), `npm_lifecycle_event` (`npx`, or the script's name).
 */
export function isStartedByPackageManager(env: NodeJS.ProcessEnv): boolean {
  return env.npm_command !== undefined || env.npm_lifecycle_event !== undefined;
}

/**
 * Stops the program with the package manager that started it. `npx restbus-gateway` runs `npm exec`, which runs
 * `sh -c restbus-gateway`, which runs node: a SIGTERM sent to npm's pid reaches the shell, which dies without
 * passing it on, and the program would live on, holding its port, with init for a parent. (A SIGINT sent to npm's
 * pid alone the shell ignores while it waits for the program: nothing ends, nothing can be noticed. Ctrl-C signals
 * the whole process group, the program included.) So when a package
 * manager started it, the parent is watched and its end is taken as a stop signal. A program started otherwise
 * (`nohup`, docker, systemd, a shell) is never watched: under `nohup` its parent's end is exactly what it must
 * outlive. Nor is one whose parent is init (pid 1) from the start. The timer does not keep the process alive.
 * Returns a function that stops watching.
 */
export function stopWithParent(options: StopWithParentOptions): () => void {
  const first = options.parentPid();
  if (!isStartedByPackageManager(options.env) || first <= 1) return () => undefined;
  const timer = setInterval(() => {
    if (options.parentPid() === first) return;
    clearInterval(timer);
    options.onParentGone();
  }, options.checkMs ?? CHECK_MS);
  timer.unref();
  return () => clearInterval(timer);
}
