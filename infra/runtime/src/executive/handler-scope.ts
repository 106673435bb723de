import { AsyncLocalStorage } from 'node:async_hooks';
import type { Logger } from 'pino';
import { RestbusError } from '../errors/restbus-error';

/** What handler code runs with: how to end its request with a failure, and where to say so. */
interface HandlerScope {
  fail: (err: unknown) => void;
  logger: Logger;
  /** When the handler's answer is due (performance.now() time): what the code it calls may spend waiting. */
  deadline?: number;
  /** What names the call across its copies (RouteContext's callId): a store names its writes after it. */
  callId?: string;
  /** Writes the handler has named so far (nextWriteOfCall). */
  writes?: number;
}

// Promises keep the async context they were created in, so a rejection nobody handles can still be traced back
// to the request whose handler left it behind (Node runs 'unhandledRejection' listeners in that context).
const scope = new AsyncLocalStorage<HandlerScope>();

/**
 * Milliseconds left before the running handler's answer is due, or undefined outside a handler. Lets a store
 * retry through an election for as long as the caller will wait, and not a moment longer.
 */
export function remainingHandlerTime(): number | undefined {
  const deadline = scope.getStore()?.deadline;
  return deadline === undefined ? undefined : deadline - performance.now();
}

/**
 * Names the running handler's next write after its call, as every copy of the call names it (a gateway's resend or
 * hedge runs the same handler on the same request, its writes in the same order): `<callId>#<n>`. Undefined outside
 * a handler or for a call without a reply. A store makes each write's id from it, so that of the copies of one call
 * only the first write lands, and a copy late by seconds does not overwrite what was written after the call was
 * answered.
 */
export function nextWriteOfCall(): string | undefined {
  const current = scope.getStore();
  if (current?.callId === undefined) return undefined;
  current.writes = (current.writes ?? 0) + 1;
  return `${current.callId}#${current.writes}`;
}

/** Runs a handler so that anything it leaves behind that rejects unhandled fails its request (see below). */
export function runInHandlerScope<T>(handlerScope: HandlerScope, run: () => T): T {
  return scope.run(handlerScope, run);
}

// One listener per process however many services it runs (tests run several): each request fails once.
const guards = new WeakMap<NodeJS.EventEmitter, { users: number; listener: (reason: unknown) => void }>();

/**
 * Makes the responder's guard structural: a rejection that handler code leaves unhandled (a throw in a `.then`
 * callback, say) fails that handler's request at once (500) instead of ending the process, which is Node's
 * default. One outside any handler is logged and the service goes on. Returns the function that removes it.
 */
export function guardUnhandledRejections(logger: Logger, events: NodeJS.EventEmitter = process): () => void {
  let guard = guards.get(events);
  if (!guard) {
    const listener = (reason: unknown): void => {
      const current = scope.getStore();
      if (current) {
        current.logger.error({ err: reason }, 'the handler left a rejection unhandled; its request fails');
        current.fail(reason ?? new RestbusError('HANDLER_FAILED', 'the handler rejected without a reason'));
      } else {
        logger.error({ err: reason }, 'unhandled rejection outside any handler; the service goes on');
      }
    };
    guard = { users: 0, listener };
    guards.set(events, guard);
    events.on('unhandledRejection', listener);
  }
  guard.users++;
  let removed = false;
  return () => {
    if (removed || !guard) return;
    removed = true;
    if (--guard.users === 0) {
      events.off('unhandledRejection', guard.listener);
      guards.delete(events);
    }
  };
}
