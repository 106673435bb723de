import { randomUUID } from 'node:crypto';
import { createInbox, DebugEvents, Events, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { onConnectionMove, RestbusError, SERVICE_ERROR_CODE_HEADER, setCarriedBudget } from '@restbus/infra';
import type { CallResend } from './resend-policy';

interface Pending {
  resolve: (msg: Msg) => void;
  reject: (err: unknown) => void;
  deadline: number;
  timeoutMs: number;
  subject: string;
  data: Uint8Array;
  headers: MsgHdrs;
  /** Published again on each reconnect after a connection it went out on was lost (an idempotent call). */
  retryable: boolean;
  /** When a call with no reply yet is published once more (Infinity: never, or done). */
  hedgeAt: number;
  /** Whether it is hedged at all (CallResend's hedgeAfterMs): a resend after a reconnect is hedged again. */
  hedged: boolean;
  /**
   * A connection it was waiting on was lost, or left cut off from its peers: a copy may have gone down with it, so
   * no reply by the deadline is the bus's failure (NATS_UNAVAILABLE), not the service's (UPSTREAM_TIMEOUT).
   */
  crossedLoss: boolean;
  /** The connection attempt the call was handed to nats.js on (see `attempt` in createRequestMux). */
  attempt: number;
  /** How many times it was published, and how many of those copies answered. */
  copies: number;
  answered: number;
  /** A 5xx reply of one copy, kept while another copy may still answer better (see onReply). */
  held?: Msg;
}

export interface RequestMux {
  /** Publishes `data` to `subject` with a reply address on the mux inbox and resolves with the first reply. */
  request(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number, resend?: CallResend): Promise<Msg>;
  /** Requests waiting for a reply. */
  pending(): number;
}

const SWEEP_MS = 25;

/** A reply flagged with a 5xx service error code: the service failed this time, another copy may not. */
function isServerError(msg: Msg): boolean {
  return msg.headers?.get(SERVICE_ERROR_CODE_HEADER).startsWith('5') ?? false;
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
  const inbox = `${createInbox(inboxPrefix)}.`;
  const waiting = new Map<string, Pending>();
  // Numbers nats.js' connection attempts (a disconnect, then each dial). nats.js 2.x empties its outbound buffer
  // when it starts a dial: a call published before the dial that succeeded was written to the lost connection or
  // thrown away, and one published during that dial is sent by nats.js once connected. The status events come a
  // few microtasks late, so a call published in that gap counts as older: it may go out twice, which only a
  // retryable call can.
  let attempt = 0;

  nc.subscribe(`${inbox}*`, {
    callback: (_err, msg) => {
      const token = msg.subject.slice(inbox.length);
      const call = waiting.get(token);
      if (!call) return; // a reply that came after its timeout, or the second reply of a call published twice
      call.answered++;
      const noResponder = msg.data.length === 0 && msg.headers?.code === 503;
      // A copy that failed (a 503 after its service waited out what it could of an election, nobody subscribed
      // for a moment) does not answer a call whose other copy is still out: that one may yet succeed, and a
      // success that comes later beats a failure that comes first. The failure is kept for the deadline.
      if (call.answered < call.copies && (noResponder || isServerError(msg))) {
        if (!noResponder) call.held = msg;
        return;
      }
      waiting.delete(token);
      if (noResponder) {
        if (call.held) call.resolve(call.held);
        else call.reject(new RestbusError('NO_RESPONDER', 'no service answers on this subject'));
      } else {
        call.resolve(msg);
      }
    },
  });

  // Deadlines grow in insertion order when the timeout is the same for all, so the sweep stops at the first
  // call still in time; calls with other timeouts are found on later sweeps.
  const sweep = setInterval(() => {
    const now = performance.now();
    for (const [token, call] of waiting) {
      if (call.hedgeAt <= now) publish(token, call);
      if (call.deadline > now) continue;
      waiting.delete(token);
      if (call.held) call.resolve(call.held);
      else
        call.reject(
          call.attempt === attempt && !call.crossedLoss
            ? new RestbusError('UPSTREAM_TIMEOUT', `the service did not reply within ${call.timeoutMs} ms`)
            : new RestbusError(
                'NATS_UNAVAILABLE',
                'the message bus connection was lost while the call was in flight; it may or may not have been applied',
              ),
        );
    }
  }, SWEEP_MS);
  sweep.unref();

  function send(token: string, call: Pending): void {
    call.attempt = attempt;
    call.copies++;
    // Each copy says how long the gateway still waits for it, so that its service answers (a 503, say) in time.
    setCarriedBudget(call.headers, call.deadline - performance.now());
    try {
      nc.publish(call.subject, call.data, { reply: `${inbox}${token}`, headers: call.headers });
    } catch (err) {
      waiting.delete(token);
      call.reject(err);
    }
  }

  /**
   * Publishes a call once more (a resend). A hedge is used once; a reconnect's resend arms it again (see
   * publishAgain), and a hedge does not use up the reconnect's resend, which a connection lost after it needs as
   * much as one lost before.
   */
  function publish(token: string, call: Pending): void {
    call.hedgeAt = Infinity;
    send(token, call);
  }

  // New calls are published together once per turn of the event loop, after every request that turn read: nats.js
  // writes what was published before its microtask runs in one socket write, so the calls of one turn cost one
  // system call instead of one each (a request's body is read in its own I/O callback, with its own microtasks).
  let outgoing: string[] = [];
  function sendOutgoing(): void {
    const tokens = outgoing;
    outgoing = [];
    for (const token of tokens) {
      const call = waiting.get(token);
      if (call) send(token, call);
    }
  }

  function publishAgain(): void {
    const now = performance.now();
    for (const [token, call] of waiting) {
      if (call.attempt !== attempt && call.retryable) {
        publish(token, call);
        if (call.hedged) call.hedgeAt = now + (call.deadline - now) / 2;
      }
    }
  }

  /** A connection the waiting calls were sent on is gone or cut off: what they still get is not on time. */
  function markLoss(): void {
    for (const call of waiting.values()) call.crossedLoss = true;
  }

  // The link left a server cut off from its peers (see createNatsLink): a call published through it went nowhere,
  // or its reply will not come back through it. A retryable call is sent again on the server the link moved to,
  // as after a reconnect, but keeps its hedge: the partition is not over for the others yet (a peer that has not
  // found the cut node's routes dead still routes into it), and this copy can be lost as the first was. A move away
  // from a lame-duck server needs no resend: that one still delivers.
  onConnectionMove(nc, (reason) => {
    if (reason !== 'cut-off') return;
    markLoss();
    for (const [token, call] of waiting) if (call.retryable) send(token, call);
  });

  void (async () => {
    for await (const status of nc.status()) {
      if (status.type === Events.Disconnect || status.type === DebugEvents.Reconnecting) {
        attempt++;
        markLoss();
      } else if (status.type === Events.Reconnect) publishAgain();
    }
  })();

  void nc.closed().then(() => {
    clearInterval(sweep);
    for (const call of waiting.values())
      call.reject(new RestbusError('NATS_UNAVAILABLE', 'the message bus connection closed'));
    waiting.clear();
  });

  return {
    request(subject, data, headers, timeoutMs, resend = { retryable: false }) {
      const token = randomUUID();
      const now = performance.now();
      const hedgeAt = resend.hedgeAfterMs === undefined ? Infinity : now + resend.hedgeAfterMs;
      return new Promise<Msg>((resolve, reject) => {
        waiting.set(token, {
          resolve,
          reject,
          deadline: now + timeoutMs,
          timeoutMs,
          subject,
          data,
          headers,
          retryable: resend.retryable,
          hedgeAt,
          hedged: resend.hedgeAfterMs !== undefined,
          crossedLoss: false,
          attempt,
          copies: 0,
          answered: 0,
        });
        if (outgoing.push(token) === 1) setImmediate(sendOutgoing);
      });
    },
    pending: () => waiting.size,
  };
}
