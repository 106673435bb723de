import { randomUUID } from 'node:crypto';
import { DebugEvents, Events, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { onConnectionMove, RestbusError, setCarriedBudget } from '@restbus/infra';
import { isNoResponder, isServerError } from './failed-reply';
import type { PendingCall, SendObserver, SendReason } from './pending-call';
import type { CallResend } from './resend-policy';

const SWEEP_MS = 25;

/**
 * The request mux's state on one connection: the calls waiting for a reply, by the token that ends their reply
 * subject on the one inbox subscription. Why it publishes, resends and fails calls as it does: see createRequestMux.
 */
export class InboxMux {
  private readonly waiting = new Map<string, PendingCall>();
  // Numbers nats.js' connection attempts (a disconnect, then each dial). nats.js 2.x empties its outbound buffer
  // when it starts a dial: a call published before the dial that succeeded was written to the lost connection or
  // thrown away, and one published during that dial is sent by nats.js once connected. The status events come a
  // few microtasks late, so a call published in that gap counts as older: it may go out twice, which only a
  // retryable call can.
  private attempt = 0;
  // New calls are published together once per turn of the event loop, after every request that turn read: nats.js
  // writes what was published before its microtask runs in one socket write, so the calls of one turn cost one
  // system call instead of one each (a request's body is read in its own I/O callback, with its own microtasks).
  private outgoing: string[] = [];
  private readonly sweeper: NodeJS.Timeout;

  /** `inbox` ends with a dot: each call's reply subject is the inbox and its token. */
  constructor(
    private readonly nc: NatsConnection,
    private readonly inbox: string,
  ) {
    nc.subscribe(`${inbox}*`, { callback: (_err, msg) => this.takeReply(msg) });
    this.sweeper = setInterval(() => this.sweep(), SWEEP_MS);
    this.sweeper.unref();
    onConnectionMove(nc, (reason) => {
      if (reason === 'cut-off') this.resendAfterCutOff();
    });
    void this.followStatus();
    void nc.closed().then(() => this.rejectAll());
  }

  /** Publishes `data` to `subject` with a reply address on the inbox and resolves with the first reply. */
  request(
    subject: string,
    data: Uint8Array,
    headers: MsgHdrs,
    timeoutMs: number,
    resend: CallResend = { retryable: false },
    onSend?: SendObserver,
  ): Promise<Msg> {
    const token = randomUUID();
    const now = performance.now();
    const hedgeAt = resend.hedgeAfterMs === undefined ? Infinity : now + resend.hedgeAfterMs;
    return new Promise<Msg>((resolve, reject) => {
      this.waiting.set(token, {
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
        attempt: this.attempt,
        copies: 0,
        answered: 0,
        onSend,
      });
      if (this.outgoing.push(token) === 1) setImmediate(() => this.sendOutgoing());
    });
  }

  /** Requests waiting for a reply. */
  pending(): number {
    return this.waiting.size;
  }

  private takeReply(msg: Msg): void {
    const token = msg.subject.slice(this.inbox.length);
    const call = this.waiting.get(token);
    if (!call) return; // a reply that came after its timeout, or the second reply of a call published twice
    call.answered++;
    const noResponder = isNoResponder(msg);
    // A copy that failed (a 503 after its service waited out what it could of an election, nobody subscribed
    // for a moment) does not answer a call whose other copy is still out: that one may yet succeed, and a
    // success that comes later beats a failure that comes first. The failure is kept for the deadline.
    if (call.answered < call.copies && (noResponder || isServerError(msg))) {
      if (!noResponder) call.held = msg;
      return;
    }
    this.waiting.delete(token);
    if (noResponder) {
      if (call.held) call.resolve(call.held);
      else call.reject(new RestbusError('NO_RESPONDER', 'no service answers on this subject'));
    } else {
      call.resolve(msg);
    }
  }

  // Every call is visited, not only those up to the first one still in time: a call's hedge can be due long before
  // its deadline, and calls with other timeouts are not in deadline order.
  private sweep(): void {
    const now = performance.now();
    for (const [token, call] of this.waiting) {
      if (call.hedgeAt <= now) this.resend(token, call, 'hedge');
      if (call.deadline > now) continue;
      this.waiting.delete(token);
      if (call.held) call.resolve(call.held);
      else call.reject(this.createDeadlineError(call));
    }
  }

  private createDeadlineError(call: PendingCall): RestbusError {
    return call.attempt === this.attempt && !call.crossedLoss
      ? new RestbusError('UPSTREAM_TIMEOUT', `the service did not reply within ${call.timeoutMs} ms`)
      : new RestbusError(
          'NATS_UNAVAILABLE',
          'the message bus connection was lost while the call was in flight; it may or may not have been applied',
        );
  }

  private send(token: string, call: PendingCall, reason: SendReason): void {
    call.attempt = this.attempt;
    call.copies++;
    call.onSend?.(call.copies, reason);
    // Each copy says how long the gateway still waits for it, so that its service answers (a 503, say) in time.
    setCarriedBudget(call.headers, call.deadline - performance.now());
    try {
      this.nc.publish(call.subject, call.data, { reply: `${this.inbox}${token}`, headers: call.headers });
    } catch (err) {
      this.waiting.delete(token);
      call.reject(err);
    }
  }

  /**
   * Publishes a call once more. A hedge is used once; a reconnect's resend arms it again (see
   * resendAfterReconnect), and a hedge does not use up the reconnect's resend, which a connection lost after it
   * needs as much as one lost before.
   */
  private resend(token: string, call: PendingCall, reason: SendReason): void {
    call.hedgeAt = Infinity;
    this.send(token, call, reason);
  }

  private sendOutgoing(): void {
    const tokens = this.outgoing;
    this.outgoing = [];
    for (const token of tokens) {
      const call = this.waiting.get(token);
      if (call) this.send(token, call, 'first');
    }
  }

  private resendAfterReconnect(): void {
    const now = performance.now();
    for (const [token, call] of this.waiting) {
      if (call.attempt !== this.attempt && call.retryable) {
        this.resend(token, call, 'reconnect');
        if (call.hedged) call.hedgeAt = now + (call.deadline - now) / 2;
      }
    }
  }

  // The link left a server cut off from its peers (see createNatsLink): a call published through it went nowhere,
  // or its reply will not come back through it. A retryable call is sent again on the server the link moved to,
  // as after a reconnect, but keeps its hedge: the partition is not over for the others yet (a peer that has not
  // found the cut node's routes dead still routes into it), and this copy can be lost as the first was. A move away
  // from a lame-duck server needs no resend: that one still delivers.
  private resendAfterCutOff(): void {
    this.markLoss();
    for (const [token, call] of this.waiting) if (call.retryable) this.send(token, call, 'cut-off');
  }

  /** A connection the waiting calls were sent on is gone or cut off: what they still get is not on time. */
  private markLoss(): void {
    for (const call of this.waiting.values()) call.crossedLoss = true;
  }

  private async followStatus(): Promise<void> {
    for await (const status of this.nc.status()) {
      if (status.type === Events.Disconnect || status.type === DebugEvents.Reconnecting) {
        this.attempt++;
        this.markLoss();
      } else if (status.type === Events.Reconnect) this.resendAfterReconnect();
    }
  }

  private rejectAll(): void {
    clearInterval(this.sweeper);
    for (const call of this.waiting.values())
      call.reject(new RestbusError('NATS_UNAVAILABLE', 'the message bus connection closed'));
    this.waiting.clear();
  }
}
