import { createClientQueue, type EventSink, type QueueLimits } from './client-queue';
import type { Heartbeat } from './heartbeat';
import type { StreamClient } from './stream-client';
import type { StreamCounters } from './stream-counters';

/** What a transport (an SSE response, a WebSocket) gives a stream client: the rest is the same for both. */
export interface StreamTransport {
  /** Where the client's bounded queue writes its events. */
  sink: EventSink;
  /** A keep-alive, on each heartbeat; `idle` says whether the queue has nothing on its way. */
  beat(idle: boolean): void;
  /** Ends the transport from our side, cleanly. */
  close(): void;
  /** Registers the one notice that the transport is over, whoever ended it. */
  onClosed(callback: () => void): void;
}

export interface StreamClientDeps {
  heartbeat: Heartbeat;
  counters: StreamCounters;
  limits: QueueLimits;
}

/**
 * A stream client over a transport: its bounded queue (createClientQueue), its place in the heartbeat, its count
 * among the open streams, and the callbacks run once when it is over.
 */
export function createStreamClient(transport: StreamTransport, deps: StreamClientDeps): StreamClient {
  const { heartbeat, counters } = deps;
  const ended: (() => void)[] = [];
  let over = false;
  const queue = createClientQueue({ sink: transport.sink, counters, ...deps.limits });
  const beating = { beat: () => transport.beat(queue.idle()) };
  const finish = (): void => {
    if (over) return;
    over = true;
    queue.close();
    heartbeat.delete(beating);
    counters.closed();
    for (const callback of ended.splice(0)) callback();
  };
  counters.opened();
  transport.onClosed(finish);
  heartbeat.add(beating);
  return {
    deliver: (event) => queue.push(event),
    drained: () => queue.whenDrained(),
    end() {
      if (!over) transport.close();
    },
    onEnd(callback) {
      if (over) callback();
      else ended.push(callback);
    },
  };
}
