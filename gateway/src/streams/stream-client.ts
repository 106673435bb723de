import type { StreamEvent } from './stream-event';

/** One open stream to one client (SSE response or WebSocket), as the event sources see it. */
export interface StreamClient {
  /** Hands one event to the client's bounded queue. */
  deliver(event: StreamEvent): void;
  /**
   * Undefined while the client takes events; else resolves once its queue is written out. A replay waits on it, so
   * that a long absence is sent at the pace the client reads, not dropped at its bound.
   */
  drained?(): Promise<void> | undefined;
  /** Ends the stream from the gateway's side (shutdown, reload, its source lost): cleanly, what is queued first. */
  end(): void;
  /** Called once when the stream is over, whoever ended it (the client left, was cut, or `end`). */
  onEnd(callback: () => void): void;
}
