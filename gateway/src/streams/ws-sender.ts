import type { Duplex } from 'node:stream';
import type { WebSocket } from 'ws';
import { DEFAULT_QUEUE_LIMITS, type QueueLimits } from './client-queue';
import { createStreamClient } from './create-stream-client';
import type { Heartbeat } from './heartbeat';
import type { StreamClient } from './stream-client';
import type { ProtocolErrorKind, StreamCounters } from './stream-counters';
import type { StreamEvent } from './stream-event';

export interface WsSenderOptions {
  heartbeat: Heartbeat;
  counters: StreamCounters;
  limits?: QueueLimits;
  /** Bytes the socket may hold unsent before the queue holds events instead (the WebSocket's 'drain'). */
  highWaterMark?: number;
}

export interface WsSender {
  /**
   * Makes a client's protocol error (a bad frame, text that is not UTF-8, a frame past WS_MAX_PAYLOAD) close only its
   * own connection, counted: to be called as the upgrade completes, before the first byte is read. open() calls it.
   */
  guard(ws: WebSocket): void;
  /** Streams to an accepted WebSocket (JSON text frames `{id?, event, data}`) and returns its client. */
  open(ws: WebSocket): StreamClient;
}

/**
 * The largest frame or message a stream's client may send. Streams go from server to client: a client has nothing to
 * send but control frames (at most 125 bytes), so anything bigger is closed with 1009 instead of buffered.
 */
export const WS_MAX_PAYLOAD = 4 * 1024;

/** ws's error codes (its `code`) by what they are counted as; any other is a protocol error (1002). */
const KIND_OF_CODE: Readonly<Record<string, ProtocolErrorKind>> = {
  WS_ERR_INVALID_UTF8: 'invalid_utf8',
  WS_ERR_TOO_MANY_BUFFERED_PARTS: 'too_many_parts',
  WS_ERR_UNSUPPORTED_MESSAGE_LENGTH: 'too_big',
  WS_ERR_UNSUPPORTED_DATA_PAYLOAD_LENGTH: 'too_big',
};

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

  // ws has sent the close frame with the error's code and stops reading by the time it emits 'error'; with no
  // listener the emit would throw and end the process.
  const onProtocolError = (err: Error & { code?: string }): void => {
    counters.protocolError(KIND_OF_CODE[err.code ?? ''] ?? 'protocol');
  };
  const guard = (ws: WebSocket): void => {
    if (!ws.listeners('error').includes(onProtocolError)) ws.on('error', onProtocolError);
  };

  return {
    guard,
    open(ws) {
      guard(ws);
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
