import { createInbox, type Msg, type MsgHdrs, type NatsConnection } from 'nats';
import { RestbusError } from '@restbus/infra';

interface Pending {
  resolve: (msg: Msg) => void;
  reject: (err: RestbusError) => void;
  deadline: number;
  timeoutMs: number;
}

export interface RequestMux {
  /** Publishes `data` to `subject` with a reply address on the mux inbox and resolves with the first reply. */
  request(subject: string, data: Uint8Array, headers: MsgHdrs, timeoutMs: number): Promise<Msg>;
  /** Requests waiting for a reply. */
  pending(): number;
}

const SWEEP_MS = 25;

/**
 * Request/reply over one wildcard inbox subscription, as nats.js does internally, but without what makes its
 * `request()` costly on a hot path: a timer and a promise race per call, and an Error (with its stack trace)
 * created for every request that completes. Timeouts are swept every 25 ms, so a 504 comes at most that late.
 * A no-responders status (the server's empty 503 reply) rejects at once.
 */
export function createRequestMux(nc: NatsConnection, inboxPrefix = '_INBOX'): RequestMux {
  const inbox = `${createInbox(inboxPrefix)}.`;
  const waiting = new Map<string, Pending>();
  let next = 0;

  nc.subscribe(`${inbox}*`, {
    callback: (_err, msg) => {
      const token = msg.subject.slice(inbox.length);
      const call = waiting.get(token);
      if (!call) return; // a reply that came after its timeout
      waiting.delete(token);
      if (msg.data.length === 0 && msg.headers?.code === 503) {
        call.reject(new RestbusError('NO_RESPONDER', 'no service answers on this subject'));
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
      if (call.deadline > now) continue;
      waiting.delete(token);
      call.reject(new RestbusError('UPSTREAM_TIMEOUT', `the service did not reply within ${call.timeoutMs} ms`));
    }
  }, SWEEP_MS);
  sweep.unref();

  void nc.closed().then(() => {
    clearInterval(sweep);
    for (const call of waiting.values())
      call.reject(new RestbusError('NATS_UNAVAILABLE', 'the message bus connection closed'));
    waiting.clear();
  });

  return {
    request(subject, data, headers, timeoutMs) {
      const token = (next++).toString(36);
      return new Promise<Msg>((resolve, reject) => {
        waiting.set(token, { resolve, reject, deadline: performance.now() + timeoutMs, timeoutMs });
        try {
          nc.publish(subject, data, { reply: `${inbox}${token}`, headers });
        } catch (err) {
          waiting.delete(token);
          reject(err);
        }
      });
    },
    pending: () => waiting.size,
  };
}
