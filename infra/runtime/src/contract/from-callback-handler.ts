import type { RequestMessage } from '../wire/types';
import type { NotImplementedReply } from './not-implemented';
import type { HandlerReply, OperationHandler, OperationInput } from './operation-types';

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
  return (input) =>
    new Promise((resolve, reject) => {
      const { message } = input;
      checkedBodies.set(message, input.body);
      handler(message, (err, reply) => {
        if (err !== null && err !== undefined) reject(err instanceof Error ? err : new Error(String(err)));
        else if (reply === undefined) reject(new Error('the handler called back without a reply'));
        else resolve(reply);
      });
    });
}

/** The body of each call a callback handler serves, as the contract's check parsed it, by the call's message. */
const checkedBodies = new WeakMap<RequestMessage, unknown>();

/**
 * The body of the call whose request message `data` is, as the contract checked and parsed it: what an upstream-style
 * handler would otherwise parse again from `data.request.body` and cast. Only for a message fromCallbackHandler
 * passed on (the check is what makes the type true).
 */
export function readCheckedBody<Op>(data: RequestMessage): OperationInput<Op>['body'] {
  if (!checkedBodies.has(data))
    throw new Error('readCheckedBody takes the message of a call a callback handler serves');
  // The one place the type is taken on trust: the contract's check, which ran before the handler, made it true.
  return checkedBodies.get(data) as OperationInput<Op>['body'];
}
