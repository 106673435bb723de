// A `catch` binds `unknown`: anything may be thrown. These read what callers want from it without a cast each time.

/**
 * The `code` of a caught error (`ENOENT`, `EADDRINUSE`, a RestbusError's code) as text, a numeric one too; undefined
 * when it has none.
 */
export function readErrorCode(err: unknown): string | undefined {
  if (typeof err !== 'object' || err === null || !('code' in err)) return undefined;
  return typeof err.code === 'string' || typeof err.code === 'number' ? String(err.code) : undefined;
}

/** The message of a caught error, or the thrown value as text when it is no Error. */
export function readErrorMessage(err: unknown): string {
  if (err instanceof Error) return err.message;
  if (typeof err === 'object' && err !== null && 'message' in err && typeof err.message === 'string')
    return err.message;
  return String(err);
}
