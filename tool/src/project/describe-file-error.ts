import { types } from 'node:util';

/**
 * A failed file operation's message with its paths as the user reads them (showPath): Node's own message names them
 * absolute, `ENOTDIR: not a directory, mkdir '/work/services/blocked/x'`, which in the tool's container is not a path
 * the user has.
 */
export function describeFileError(err: unknown, show: (path: string) => string): string {
  // isNativeError: an error of Node's own made in another realm (a vm context, a jest test) is no `instanceof Error`.
  if (!(err instanceof Error) && !types.isNativeError(err)) return String(err);
  const { path, dest } = err as NodeJS.ErrnoException & { dest?: string };
  let message = err.message;
  for (const named of [path, dest]) {
    if (typeof named === 'string' && named) message = message.split(`'${named}'`).join(`'${show(named)}'`);
  }
  return message;
}
