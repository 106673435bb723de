import type { Logger } from 'pino';
import { RestbusError } from '../errors/restbus-error';
import type { RouteHandler } from '../nats/start-responder';
import type { RequestMessage, ResponseMessage } from '../wire/types';
import { createDeadlineQueue } from './create-deadline-queue';
import { runInHandlerScope } from './handler-scope';

/** Upstream's error-first callback: `cb(null, {status, headers, body})`, also for HTTP-level errors. */
export type Callback = (err: unknown, response?: ResponseMessage) => void;

/**
 * A handler in the upstream style, `(data, cb)` with `data` the whole request message. Returning a promise of a
 * response works as well.
 */
export type Handler = (data: RequestMessage, cb: Callback) => void | Promise<ResponseMessage | void>;

/**
 * Turns a callback handler into a responder route: `cb(err)`, a throw, a rejection or no answer before the
 * deadline become a failure (the responder answers 500); a second `cb` is ignored and logged. The handler runs in
 * a scope, so that a rejection it leaves unhandled fails its request too (see guardUnhandledRejections).
 */
export function adaptHandler(handler: Handler, deadlineMs: number, logger: Logger): RouteHandler {
  const deadlines = createDeadlineQueue(deadlineMs);
  return (data) =>
    new Promise<ResponseMessage>((resolve, reject) => {
      let settled = false;
      const deadline = deadlines.add(() => {
        settled = true;
        reject(new RestbusError('HANDLER_FAILED', `the handler did not call back within ${deadlineMs} ms`));
      });
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
        const result = runInHandlerScope({ fail: cb, logger, deadline: deadline.at }, () => handler(data, cb));
        if (result && typeof (result as Promise<unknown>).then === 'function') {
          (result as Promise<ResponseMessage | void>).then(
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
