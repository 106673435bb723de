import type { Msg, MsgHdrs } from 'nats';

/** Why a copy of a call is published: the first send, a hedge of a late reply, or a resend after a lost connection. */
export type SendReason = 'first' | 'hedge' | 'reconnect' | 'cut-off';

/** Told of each copy a call publishes (its number from 1, and why): a trace's record of every send. */
export type SendObserver = (copy: number, reason: SendReason) => void;

/** A call waiting on the request mux for its reply. */
export interface PendingCall {
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
  /** The connection attempt the call was handed to nats.js on (see InboxMux's `attempt`). */
  attempt: number;
  /** How many times it was published, and how many of those copies answered. */
  copies: number;
  answered: number;
  /** A 5xx reply of one copy, kept while another copy may still answer better (see InboxMux's takeReply). */
  held?: Msg;
  onSend?: SendObserver;
}
