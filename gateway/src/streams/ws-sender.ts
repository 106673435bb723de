import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { DEFAULT_QUEUE_LIMITS, type QueueLimits } from './client-queue';
import { createStreamClient } from './create-stream-client';
import type { Heartbeat } from './heartbeat';
import type { StreamClient } from './stream-client';
import type { StreamCounters } from './stream-counters';
import type { StreamEvent } from './stream-event';

export interface WsSenderOptions {
  heartbeat: Heartbeat;
  counters: StreamCounters;
  limits?: QueueLimits;
  /** Bytes the socket may hold unsent before the queue holds events instead (the WebSocket's 'drain'). */
  highWaterMark?: number;
}

export interface WsSender {
  /** Streams to an accepted WebSocket (JSON text frames `{id?, event, data}`) and returns its client. */
  open(ws: WebSocket): StreamClient;
}

const TEXT = { binary: false } as const;
const sizeOf = (event: StreamEvent): number => event.ws().length;
// ws.OPEN, without importing the value (the package is the caller's).
const OPEN = 1;
// ws writes each frame on its own; its maintainers point to corking the socket underneath to batch (ws#1999).
const socketOf = (ws: WebSocket): Duplex => (ws as unknown as { _socket: Duplex })._socket;

/** Serves streams over WebSockets, over the same bounded queue per client as SSE (createClientQueue). */
export function createWsSender(options: WsSenderOptions): WsSender {
  const { heartbeat, counters } = options;
  const limits = options.limits ?? DEFAULT_QUEUE_LIMITS;
  const highWaterMark = options.highWaterMark ?? 64 * 1024;

  return {
    open(ws) {
      let ready: (() => void) | undefined;
      let corked = false;
      const socket = socketOf(ws);
      // A burst's frames leave in one write at the end of the tick, as Node's HTTP response does for SSE. Corked
      // frames still count in bufferedAmount, so the mark and the frame callbacks keep the queue's backpressure.
      const uncorkNow = (): void => {
        corked = false;
        socket.uncork();
      };
      const corkForTick = (): void => {
        if (corked) return;
        corked = true;
        socket.cork();
        process.nextTick(uncorkNow);
      };
      // ws has no 'drain': the callback of the frame that crossed the mark says when it left the buffer. One
      // function per client, passed only on that frame.
      const onSent = (): void => {
        const callback = ready;
        ready = undefined;
        callback?.();
      };
      return createStreamClient(
        {
          sink: {
            write(event) {
              if (ws.readyState !== OPEN) return true;
              const frame = event.ws();
              corkForTick();
              if (ws.bufferedAmount + frame.length <= highWaterMark) {
                ws.send(frame, TEXT);
                return true;
              }
              ws.send(frame, TEXT, onSent);
              return false;
            },
            size: sizeOf,
            waitReady(callback) {
              ready = callback;
            },
            // A stalled client would never finish a closing handshake.
            cut: () => ws.terminate(),
          },
          beat: () => {
            if (ws.readyState === OPEN) ws.ping();
          },
          close: () => ws.close(1001, 'stream ended'),
          onClosed: (callback) => ws.once('close', callback),
        },
        { heartbeat, counters, limits },
      );
    },
  };
}
