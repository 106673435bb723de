import type { StreamCounters } from './stream-counters';
import { createGapEvent, type StreamEvent } from './stream-event';

/** Where a client's events go: an SSE response or a WebSocket (createSseWriter, createWsSender). */
export interface EventSink {
  /** Writes one event; false when the transport asks to wait (`waitReady`) before the next. */
  write(event: StreamEvent): boolean;
  /** The bytes one event takes in this transport's encoding (what the byte bound counts). */
  size(event: StreamEvent): number;
  /** Calls back once when the transport can take more (SSE: 'drain'; WebSocket: the frame left the buffer). */
  waitReady(callback: () => void): void;
  /** Ends the client: its queue passed the bound under the `close` policy. */
  cut(): void;
}

export type OverflowPolicy = 'gap' | 'close';

export interface QueueLimits {
  /** At most this many events waiting (default 1,000). */
  maxEvents: number;
  /** At most this many bytes waiting (default 1 MiB). */
  maxBytes: number;
  /** Past a bound: drop and later say how many were missed (`gap`), or cut the client (`close`). */
  overflow: OverflowPolicy;
}

export const DEFAULT_QUEUE_LIMITS: QueueLimits = { maxEvents: 1000, maxBytes: 1024 * 1024, overflow: 'gap' };

export interface ClientQueue {
  /** Hands one event to the client: written now, queued, dropped (gap) or the client cut (close). */
  push(event: StreamEvent): void;
  /** True when nothing waits and the transport takes writes (a keep-alive comment may go now). */
  idle(): boolean;
  /** Undefined when the transport takes writes; else resolves once everything queued is written (or on close). */
  whenDrained(): Promise<void> | undefined;
  queued(): number;
  queuedBytes(): number;
  /** Drops what waits; nothing is written after. */
  close(): void;
}

export interface ClientQueueOptions extends QueueLimits {
  sink: EventSink;
  counters: StreamCounters;
}

/**
 * The bounded queue between a stream and one client. Events are written straight through while the transport takes
 * them; only a slow client holds an array, of shared events (no copies). Past the bound the policy decides.
 */
export function createClientQueue(options: ClientQueueOptions): ClientQueue {
  const { sink, counters, maxEvents, maxBytes, overflow } = options;
  let waiting: StreamEvent[] = [];
  let head = 0;
  let bytes = 0;
  let blocked = false;
  let closed = false;
  let missed = 0;
  let firstMissed: number | undefined;
  let lastMissed: number | undefined;
  let drainWaiters: (() => void)[] = [];

  const wakeDrainWaiters = (): void => {
    const waiters = drainWaiters;
    drainWaiters = [];
    for (const wake of waiters) wake();
  };

  const write = (event: StreamEvent): boolean => {
    counters.sent();
    return sink.write(event);
  };

  const takeGap = (): StreamEvent => {
    const gap = createGapEvent(missed, firstMissed, lastMissed);
    missed = 0;
    firstMissed = lastMissed = undefined;
    counters.gap();
    return gap;
  };

  const enqueue = (event: StreamEvent): void => {
    waiting.push(event);
    bytes += sink.size(event);
  };

  const flush = (): void => {
    blocked = false;
    if (closed) return wakeDrainWaiters();
    while (head < waiting.length) {
      const event = waiting[head];
      waiting[head++] = undefined as unknown as StreamEvent;
      bytes -= sink.size(event);
      if (!write(event)) {
        blocked = true;
        sink.waitReady(flush);
        return;
      }
    }
    waiting = [];
    head = 0;
    bytes = 0;
    // Everything before the dropped events is out: the gap comes next, then what follows it.
    if (missed > 0 && !write(takeGap())) {
      blocked = true;
      sink.waitReady(flush);
      return;
    }
    wakeDrainWaiters();
  };

  const drop = (event: StreamEvent): void => {
    if (overflow === 'close') {
      closed = true;
      waiting = [];
      head = 0;
      bytes = 0;
      counters.cut();
      sink.cut();
      wakeDrainWaiters();
      return;
    }
    missed++;
    if (event.seq !== undefined) {
      firstMissed ??= event.seq;
      lastMissed = event.seq;
    }
  };

  return {
    push(event) {
      if (closed) return;
      if (!blocked) {
        // Not blocked means nothing waits: missed events were followed by a flush that wrote the gap.
        if (!write(event)) {
          blocked = true;
          sink.waitReady(flush);
        }
        return;
      }
      const count = waiting.length - head;
      if (count >= maxEvents || bytes + sink.size(event) > maxBytes) {
        drop(event);
        return;
      }
      if (missed > 0) enqueue(takeGap());
      enqueue(event);
    },
    idle: () => !blocked && !closed,
    whenDrained: () => (blocked && !closed ? new Promise<void>((wake) => drainWaiters.push(wake)) : undefined),
    queued: () => waiting.length - head,
    queuedBytes: () => bytes,
    close() {
      closed = true;
      waiting = [];
      head = 0;
      bytes = 0;
      wakeDrainWaiters();
    },
  };
}
