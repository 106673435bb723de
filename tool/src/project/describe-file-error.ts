import { types } from 'node:util';

/**
 * A failed file operation's message with its paths as the user reads them (showPath): Node's own message names them
 * absolute, `ENOTDIR: not a directory, mkdir '/work/services/blocked/x'`, which in the tool's container is not a path
 * the user has.
 */
export function describeFileError(err: unknown, show: (path: string) => string): string {
  // isNativeError: an error of Node's own made in another realm (a vm context, a jest test) is no `instanceof Error`.
  if (!(err instanceof Error) && !types.isNativeError(err)) return String(err);
  // Node's file errors name `path`, and `dest` too when there are two (a rename, a copy).
  const path = 'path' in err ? err.path : undefined;
  const dest = 'dest' in err ? err.dest : undefined;
  let message = err.message;
  for (const named of [path, dest]) {
    if (typeof named === 'string' && named) message = message.split(`'${named}'`).join(`'${show(named)}'`);
  }
  return message;
}
