import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { InboxMux } from './inbox-mux';
import type { SendObserver } from './pending-call';
import type { CallResend } from './resend-policy';

export interface RequestMux {
  /**
   * Publishes `data` to `subject` with a reply address on the mux inbox and resolves with the first reply;
   * `onSend` hears of each copy published (the first, hedges, resends).
   */
  request(
    subject: string,
    data: Uint8Array,
    headers: MsgHdrs,
    timeoutMs: number,
    resend?: CallResend,
    onSend?: SendObserver,
  ): Promise<Msg>;
  /** Requests waiting for a reply. */
  pending(): number;
}

/**
 * Request/reply over one wildcard inbox subscription, as nats.js does internally, but without what makes its
 * `request()` costly on a hot path: a timer and a promise race per call, and an Error (with its stack trace)
 * created for every request that completes. Timeouts are swept every 25 ms, so a 504 comes at most that late.
 * A no-responders status (the server's empty 503 reply) rejects at once.
 *
 * When the connection is lost (its server died), a call in flight may never be answered: the request or its reply
 * went down with the server. On each reconnect, each retryable call is published once more with the same reply
 * token (whether or not it was hedged before), so that whichever reply comes first answers it and the other finds
 * no one waiting; its deadline stays. Any other call keeps waiting, since its reply may still come over the new
 * connection. The resend can be lost too: the services that were on the lost server are moving as well, and the
 * cluster routes to their old subscriptions until that server drops them. So a hedged call is hedged again, at half
 * of what is left of its timeout. At its deadline a call that was waiting when a connection was lost (a POST or
 * PATCH, any call while the gateway is not yet connected again, a resend that was lost as well) is rejected with
 * NATS_UNAVAILABLE, not UPSTREAM_TIMEOUT: it may or may not have been applied, and it failed for the bus's sake.
 *
 * A node cut off from its peers (a network partition) takes the calls published into it without a word: once the
 * link has moved away from it, each retryable call waiting is published again on the new server.
 *
 * A node that dies can also take a call with it while the gateway's own connection stays: the service that got
 * it was connected there, or the reply was routed through it. A hedged call is published once more when its reply
 * is late, with the same token, so one of the two answers it.
 *
 * Every copy carries the time the call still has when it is published (DEADLINE_HEADER, in ms): its service
 * answers by then (a write waiting out a JetStream election answers 503 just before), so a hedged copy, sent at
 * half the timeout, is given the other half, not a whole timeout the gateway will not wait. Of the copies, a
 * success answers the call whenever it comes; a 5xx (or "no responders") answers it only once no other copy is
 * out, else at the deadline: a 503 from the copy that met the election first must not beat the other's success.
 *
 * Each call's token is random (a v4 UUID: 122 random bits), not a counter: every service that gets a call sees its
 * reply subject, and one that could publish to the inbox (NATS permissions looser than the README's) could answer
 * the calls after it, meant for other services, if it could tell their subjects. nats.js' nuid would not do: its
 * sequence steps by a constant increment. randomUUID draws from a cached pool, so it costs about 0.1 µs.
 */
export function createRequestMux(nc: NatsConnection, inboxPrefix = '_INBOX'): RequestMux {
  return new InboxMux(nc, `${createInbox(inboxPrefix)}.`);
}
