import { USAGE_EXIT_CODE } from '../config/load-config';
import { isRestbusError } from '../errors/restbus-error';

/** Set once a shutdown signal arrived. */
let stopping = false;

/**
 * Runs a program's start function and turns the ways it can fail into an exit code and one line on stderr:
 * help and version exit 0, a command line that was not understood or a setting with an invalid value exits 2,
 * anything else exits 1 with the error's message (never a stack trace).
 */
export function runMain(program: string, start: () => Promise<void>): void {
  start().catch((err: unknown) => {
    // A start cut short by a shutdown signal (e.g. still waiting for NATS) is not a failure.
    if (stopping) return;
    // commander has written the help, the version or what it did not understand.
    if (isRestbusError(err) && err.code === 'HELP_SHOWN') process.exit(0);
    if (isRestbusError(err) && err.code === 'USAGE') process.exit(USAGE_EXIT_CODE);
    const message = isRestbusError(err) ? err.message : err instanceof Error ? err.message : String(err);
    process.stderr.write(`${program}: ${message}\n`);
    // A flag or variable with a value the program cannot take is a usage error too: the fix is in the command.
    if (isRestbusError(err) && err.code === 'CONFIG_INVALID') process.exit(USAGE_EXIT_CODE);
    // Exit now: a NATS connection retrying forever would otherwise keep a failed program alive.
    process.exit(1);
  });
}

/** Calls `stop` once on the first SIGTERM or SIGINT, then exits 0 (1 if stopping failed). */
export function onShutdownSignal(stop: () => Promise<void>): void {
  const handle = (): void => {
    if (stopping) return;
    stopping = true;
    stop().then(
      () => process.exit(0),
      (err: unknown) => {
        process.stderr.write(`shutdown failed: ${err instanceof Error ? err.message : String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.once('SIGTERM', handle);
  process.once('SIGINT', handle);
}
