import type { HttpMethod } from '@restbus/infra';

/**
 * When a call goes out more than once, in one place. A NATS node that dies or leaves can lose a call three ways, and
 * each has its remedy:
 *
 * 1. **Our connection moved** (its server died): on reconnect, a call still waiting is published again, if sending
 *    it twice does no harm (`retryable`): on every reconnect, hedged before or not, so that only a call that cannot
 *    be sent again (POST, PATCH) or that meets its deadline before the gateway is connected again is answered 503
 *    "lost while in flight".
 * 2. **The service moved** (its server died, ours lived): for a moment nobody subscribes, and NATS answers "no
 *    responders". Nobody received the call, so it is sent again after a short pause, for any method, while the
 *    subject was answered recently; a subject that has not been answered for a while has no service: 503 at once.
 * 3. **The request or reply was lost in between** (routed through the dead node): no answer ever comes. A
 *    retryable call is published once more at half its timeout (`hedgeAfterMs`), to whichever replica takes it.
 *
 * Every resend keeps the call's reply token and deadline, the timeout never grows, and each copy carries what is left
 * of it (Restbus-Deadline-Ms), so the service that gets a resend answers while the gateway still waits. The first
 * success answers the call; a copy's 5xx waits for the other copies (see createRequestMux).
 */
export interface ResendPolicy {
  /** How long a call waits for the link to reach another server before it is answered 503. */
  readonly failoverWaitMs: number;
  /** What the request mux may do with one call (remedies 1 and 3). */
  resendFor(method: HttpMethod): CallResend;
  /** The pause before the call is sent again after "no responders" (remedy 2), or undefined: give up now. */
  pauseAfterNoResponder(wait: { attempt: number; elapsedMs: number; sinceServedMs: number }): number | undefined;
}

/** How the request mux treats one call. */
export interface CallResend {
  /** Published again on each reconnect after the connection it went out on was lost, until its reply comes. */
  retryable: boolean;
  /** Published once more when no reply came this many ms after it was sent; undefined: never. */
  hedgeAfterMs?: number;
}

/**
 * The methods whose call may be sent twice (RFC 9110 §9.2.2): the same call twice has the effect of once. POST and
 * PATCH are never repeated, except after "no responders", when nobody received them.
 */
const IDEMPOTENT_METHODS = new Set<HttpMethod>(['get', 'head', 'put', 'delete', 'options', 'trace']);

// nats.js moves to another server of a cluster within about a second (its reconnect wait on the lost one).
const FAILOVER_WAIT_MS = 3000;
// How long a call waits for a service to subscribe again when none listens (a failover takes ~0.1-1 s).
const NO_RESPONDER_WAIT_MS = 1000;
const FIRST_PAUSE_MS = 25;
// A subject answered this recently whose service is now gone is taken to be moving to another NATS server.
const RECENTLY_SERVED_MS = 10_000;

export function createResendPolicy(timeoutMs: number): ResendPolicy {
  const noResponderBudget = Math.min(NO_RESPONDER_WAIT_MS, timeoutMs);
  return {
    failoverWaitMs: Math.min(FAILOVER_WAIT_MS, timeoutMs),
    resendFor(method) {
      const retryable = IDEMPOTENT_METHODS.has(method);
      return { retryable, hedgeAfterMs: retryable ? timeoutMs / 2 : undefined };
    },
    pauseAfterNoResponder({ attempt, elapsedMs, sinceServedMs }) {
      const pause = FIRST_PAUSE_MS * 2 ** attempt;
      const moving = sinceServedMs < RECENTLY_SERVED_MS;
      return moving && elapsedMs + pause <= noResponderBudget ? pause : undefined;
    },
  };
}
