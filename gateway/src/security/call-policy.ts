import type { IncomingMessage, OutgoingHttpHeaders } from 'node:http';
import type { CallerIdentity } from '@restbus/infra';

/** What a policy sees of a call (an ordinary call or a stream's), and where it leaves what it learned. */
export interface PolicyCall {
  req: IncomingMessage;
  /** The query string without its `?`. */
  query: string;
  /** Who called, once a policy verified it: the service finds it at `request.user`. */
  user?: CallerIdentity;
  /** The headers every answer to the call carries, where a policy adds its own (a rate limit's RateLimit fields). */
  headers?: OutgoingHttpHeaders;
}

/**
 * A step every call of an endpoint passes before it is answered, chosen once per endpoint at load as the answer is
 * (the operation's security today; a rate limit can be another): it admits the call, leaving what it learned on it
 * (`call.user`), or refuses it by throwing or rejecting with the RestbusError the client gets. A refused call never reaches NATS.
 */
export interface CallPolicy {
  /** Undefined when it admits the call at once (no promise on the busiest path); else settles as said above. */
  admit(call: PolicyCall): void | Promise<void>;
}
