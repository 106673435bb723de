import { SSE_COMMENT, SSE_HEADERS } from '@restbus/infra';
import type { OutgoingHttpHeaders, ServerResponse } from 'node:http';
import { DEFAULT_QUEUE_LIMITS, type QueueLimits } from './client-queue';
import { createStreamClient } from './create-stream-client';
import type { Heartbeat } from './heartbeat';
import type { StreamClient } from './stream-client';
import type { StreamCounters } from './stream-counters';
import type { StreamEvent } from './stream-event';

export interface SseWriterOptions {
  heartbeat: Heartbeat;
  counters: StreamCounters;
  limits?: QueueLimits;
  /** The `retry:` sent once: how long a client's EventSource waits before reconnecting (ms). */
  retryMs?: number;
}

export interface SseWriter {
  /** Answers 200 with an event stream on `res` (the caller's headers beside ours) and returns its client. */
  open(res: ServerResponse, headers?: OutgoingHttpHeaders): StreamClient;
}

const COMMENT = Buffer.from(SSE_COMMENT);
const sizeOf = (event: StreamEvent): number => event.sse().length;

/** Serves streams as Server-Sent Events over a bounded queue per client (createClientQueue). */
export function createSseWriter(options: SseWriterOptions): SseWriter {
  const { heartbeat, counters } = options;
  const limits = options.limits ?? DEFAULT_QUEUE_LIMITS;
  const retry = Buffer.from(`retry: ${options.retryMs ?? 3000}\n\n`);

  return {
    open(res, headers = {}) {
      res.writeHead(200, { ...headers, ...SSE_HEADERS });
      res.write(retry);
      return createStreamClient(
        {
          sink: {
            write: (event) => res.write(event.sse()),
            size: sizeOf,
            waitReady: (callback) => res.once('drain', callback),
            // A stalled client's buffers are freed now: ending would wait for it to read them.
            cut: () => res.destroy(),
          },
          beat: (idle) => {
            if (idle) res.write(COMMENT);
          },
          close: () => res.end(),
          // A client that reset while the service was asked has closed already: its 'close' will not come again.
          // Told on the next tick, once the client is counted and in the heartbeat, so that it leaves both.
          onClosed: (callback) => (res.closed ? process.nextTick(callback) : res.once('close', callback)),
        },
        { heartbeat, counters, limits },
      );
    },
  };
}
