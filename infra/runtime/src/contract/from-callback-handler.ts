import type { RequestMessage } from '../wire/types';
import type { NotImplementedReply } from './not-implemented';
import type { HandlerReply, OperationHandler } from './operation-types';

/**
 * A handler in the upstream style, `(data, cb)`, typed by its operation: `data` is the whole request message (its
 * input already checked against the contract), and `cb(null, reply)` answers one of the replies the operation
 * declares, HTTP errors included; `cb(err)` is a failure (500).
 */
export type CallbackOperationHandler<Op> = (
  data: RequestMessage,
  cb: (err: unknown, reply?: HandlerReply<Op> | NotImplementedReply) => void,
) => void;

/**
 * Serves an upstream-style handler as a contract's handler. The first callback answers; the executive's deadline
 * answers a handler that never calls back, and its handler scope fails one that leaves a rejection unhandled.
 */
export function fromCallbackHandler<Op>(handler: CallbackOperationHandler<Op>): OperationHandler<Op> {
  return ({ message }) =>
    new Promise((resolve, reject) => {
      handler(message, (err, reply) => {
        if (err !== null && err !== undefined) reject(err instanceof Error ? err : new Error(String(err)));
        else if (reply === undefined) reject(new Error('the handler called back without a reply'));
        else resolve(reply);
      });
    });
}
