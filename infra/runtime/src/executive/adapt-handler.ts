import type { Logger } from 'pino';
import { RestbusError } from '../errors/restbus-error';
import type { RouteHandler } from '../nats/start-responder';
import type { RequestMessage, ResponseMessage } from '../wire/types';
import { createDeadlineQueue, type Deadline } from './create-deadline-queue';
import { runInHandlerScope } from './handler-scope';

/** Upstream's error-first callback: `cb(null, {status, headers, body})`, also for HTTP-level errors. */
export type Callback = (err: unknown, response?: ResponseMessage) => void;

/**
 * A handler in the upstream style, `(data, cb)` with `data` the whole request message. Returning a promise of a
 * response works as well.
 */
export type Handler = (data: RequestMessage, cb: Callback) => void | Promise<ResponseMessage | void>;

/**
 * Kept back from the time the caller still waits (RouteContext's budgetMs) to send the answer back: a 503 or a 500 that
 * reaches the gateway after it gave up is lost on the client, who gets a 504 instead.
 */
const REPLY_MARGIN_MS = 100;
/** The longest deadline a request may ask for: `--handlerTimeout`'s own maximum (a caller may not hold a handler for days). */
const LONGEST_CARRIED_MS = 600_000;

/** A deadline of its own, for a call whose caller said how long it waits. */
function startTimer(ms: number, onExpired: () => void): Deadline {
  const timer = setTimeout(onExpired, ms);
  timer.unref();
  return { at: performance.now() + ms, cancel: () => clearTimeout(timer) };
}

/**
 * Turns a callback handler into a responder route: `cb(err)`, a throw, a rejection or no answer before the
 * deadline become a failure (the responder answers 500); a second `cb` is ignored and logged. The handler runs in
 * a scope, so that a rejection it leaves unhandled fails its request too (see guardUnhandledRejections).
 *
 * The deadline is the time the caller still waits when the request says so (the gateway's Restbus-Deadline-Ms, read
 * by the responder), shorter or longer than `deadlineMs`, which is for callers that do not say (easer's gateway): what
 * the handler's store calls may spend waiting out a JetStream election, so that a write gets through when the
 * election ends before the caller gives up, and answers 503 while it still listens otherwise.
 */
/** A handler's promise, or any thenable a JavaScript handler returns in its place. */
function isThenable(value: unknown): value is PromiseLike<ResponseMessage | void> {
  return typeof value === 'object' && value !== null && typeof Reflect.get(value, 'then') === 'function';
}

export function adaptHandler(handler: Handler, deadlineMs: number, logger: Logger): RouteHandler {
  const deadlines = createDeadlineQueue(deadlineMs);
  return (data, context) =>
    new Promise<ResponseMessage>((resolve, reject) => {
      let settled = false;
      const carried =
        context.budgetMs === undefined ? undefined : context.budgetMs - (performance.now() - context.receivedAt);
      const ms =
        carried === undefined ? deadlineMs : Math.min(LONGEST_CARRIED_MS, Math.max(0, carried - REPLY_MARGIN_MS));
      const expire = (): void => {
        settled = true;
        reject(new RestbusError('HANDLER_FAILED', `the handler did not call back within ${Math.round(ms)} ms`));
      };
      // The queue holds the deadlines of one length; one the caller set runs on a timer of its own.
      const deadline = carried === undefined ? deadlines.add(expire) : startTimer(ms, expire);
      const cb: Callback = (err, response) => {
        if (settled) {
          logger.warn({ topic: data.topic }, 'the handler called back again (or after its deadline); ignored');
          return;
        }
        settled = true;
        deadline.cancel();
        if (err !== null && err !== undefined) reject(err instanceof Error ? err : new Error(String(err)));
        else resolve(response as ResponseMessage);
      };
      try {
        const result = runInHandlerScope({ fail: cb, logger, deadline: deadline.at, callId: context.callId }, () =>
          handler(data, cb),
        );
        if (isThenable(result)) {
          result.then(
            (response) => {
              if (response !== undefined) cb(null, response);
            },
            (err: unknown) => cb(err ?? new Error('the handler rejected')),
          );
        }
      } catch (err) {
        cb(err ?? new Error('the handler threw'));
      }
    });
}
