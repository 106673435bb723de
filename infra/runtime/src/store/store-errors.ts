import { RestbusError } from '../errors/restbus-error';
import { remainingHandlerTime } from '../executive/handler-scope';
import { readErrorCode, readErrorMessage } from '../errors/read-caught-error';

// How nats.js and JetStream say "not now": no connection, no JetStream leader or peers, no answer in time.
const UNAVAILABLE_CODES = new Set(['TIMEOUT', '503', 'CONNECTION_CLOSED', 'CONNECTION_DRAINING', 'DISCONNECT']);
// A write whose id JetStream is still storing (an earlier attempt of it, or a copy of its call, is being replicated:
// a slow route) is refused "in process" until stored, and is a duplicate after that: not now, and maybe applied.
const UNAVAILABLE_MESSAGE =
  /timeout|no responders|temporarily unavailable|insufficient resources|not connected|message id is in process/i;
// An answer that never came may still have been acted on; a refusal (no responders, no leader) was not.
const MAYBE_APPLIED = /timeout|message id is in process/i;
const STREAM_MISSING = /stream not found/i;

/** Without a handler around it (a test, a startup step), a store call waits this long for the store to return. */
const DEFAULT_WAIT_MS = 5000;
// Time kept back from the handler's deadline to send the answer (a 503) before the caller gives up.
const ANSWER_MARGIN_MS = 150;
const FIRST_PAUSE_MS = 50;
const LONGEST_PAUSE_MS = 500;
// What the last attempt before the deadline is given if it can: a KV write's round trip to a new leader.
const LAST_ATTEMPT_MS = 50;
// Attempts close to the deadline come at least this far apart, however little is left.
const SHORTEST_PAUSE_MS = 10;

export function isUnavailable(err: unknown): boolean {
  if (err instanceof RestbusError) return err.code === 'STORE_UNAVAILABLE';
  return UNAVAILABLE_CODES.has(String(readErrorCode(err))) || UNAVAILABLE_MESSAGE.test(readErrorMessage(err));
}

/** True when a failed write may have been stored all the same: the request went out and no answer came back. */
export function mayHaveBeenApplied(err: unknown): boolean {
  return readErrorCode(err) === 'TIMEOUT' || MAYBE_APPLIED.test(readErrorMessage(err));
}

export function isStreamMissing(err: unknown): boolean {
  return STREAM_MISSING.test(readErrorMessage(err));
}

/**
 * A failure of the store as the client should hear it: one that will pass (NATS restarting, a JetStream leader
 * being elected) is `STORE_UNAVAILABLE` (503 with Retry-After), anything else stays what it is (500).
 */
export function toStoreError(err: unknown, bucket: string): unknown {
  if (err instanceof RestbusError) return err;
  if (isUnavailable(err)) {
    return new RestbusError('STORE_UNAVAILABLE', `the store (${bucket}) is not available just now; retry shortly`, {
      cause: err,
    });
  }
  return err;
}

/** Milliseconds the current call may still spend on the store before it must answer. */
export function storeBudget(): number {
  return (remainingHandlerTime() ?? DEFAULT_WAIT_MS) - ANSWER_MARGIN_MS;
}

/** The promise, or a TIMEOUT failure once `ms` have passed. */
export function within<R>(promise: Promise<R>, ms: number): Promise<R> {
  let timer: NodeJS.Timeout | undefined;
  const late = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(
      () => reject(Object.assign(new Error('no answer in time'), { code: 'TIMEOUT' })),
      Math.max(0, ms),
    );
  });
  return Promise.race([promise, late]).finally(() => clearTimeout(timer));
}

export const pause = (ms: number): Promise<void> => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Runs a store operation again, with growing pauses, for as long as the store is only unavailable (a leader
 * election, a node restarting) and the caller's deadline allows; then the last failure, as a store error.
 * `recover` runs between attempts (e.g. to recreate a stream that was deleted).
 */
export async function retryWhileUnavailable<R>(
  bucket: string,
  operation: () => Promise<R>,
  recover: (err: unknown) => Promise<void> = async () => undefined,
  budgetMs = storeBudget(),
): Promise<R> {
  const until = performance.now() + budgetMs;
  for (let wait = FIRST_PAUSE_MS; ; wait = Math.min(wait * 2, LONGEST_PAUSE_MS)) {
    try {
      // An attempt that outlives the deadline goes on unanswered (nats.js has no per-call timeout for KV writes):
      // it counts as a timeout, and so as a write that may still land.
      return await within(operation(), until - performance.now());
    } catch (err) {
      const retriable = isUnavailable(err) || isStreamMissing(err);
      // The last pauses are cut to what is left, so the last attempt comes just before the deadline: an election
      // that ends then still gets the write through, instead of a 503 given up to a whole pause early.
      const left = until - performance.now();
      if (!retriable || left < SHORTEST_PAUSE_MS * 2) throw toStoreError(err, bucket);
      await recover(err).catch(() => undefined);
      await pause(Math.max(SHORTEST_PAUSE_MS, Math.min(wait, left - LAST_ATTEMPT_MS)));
    }
  }
}
