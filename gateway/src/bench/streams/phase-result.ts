/** What one phase of one system measured, in the clients' process. Latencies in ms, from publish to a client. */
export interface PhaseResult {
  /** Events delivered to clients (each client's copy counts once) during the phase, per second. */
  deliveriesPerSecond: number;
  /** Every delivery of the phase's events, those that arrived after its end included (the CPU figures' divisor). */
  deliveries: number;
  /** Events published during the phase, per second. */
  eventsPerSecond: number;
  p50: number;
  p99: number;
  max: number;
  /** Events that did not reach every client (missed, cut, or still on their way 3 s after the end). */
  incomplete: number;
  /** Events other than `message` (the gateway's `gap`, `reset`) the clients got. */
  others: number;
  /** Whether the phase ended early because no event reached every reading client for 3 s. */
  stalled: boolean;
  /** CPU of the clients' process (clients and publisher) over the phase, in % of one core. */
  clientCpu: number;
  /** The stalled client, when there was one: what it read once it read again (for 2 s after the phase). */
  stalledClient?: { events: number; gaps: number; missed: number };
}

/** The commands the bench sends to the clients' process, one at a time. */
export type PhaseCommand =
  | { cmd: 'probe' }
  /** As fast as delivered: `window` events in flight, the next one published when one has reached every client. */
  | { cmd: 'saturate'; seconds: number; window: number }
  /**
   * `rate` events/s, whatever the delivery. With `stall`, one more SSE client opens the stream at `stall.url` and
   * reads nothing, while each tick also publishes an event of `stall.padBytes` on `stall.subject` for it.
   */
  | { cmd: 'rate'; seconds: number; rate: number; stall?: StallSetting };

export interface StallSetting {
  url: string;
  subject: string;
  padBytes: number;
}
