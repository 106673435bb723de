/** Something an idle stream does to stay open through proxies: an SSE comment, a WebSocket ping. */
export interface Beating {
  beat(): void;
}

export interface Heartbeat {
  add(stream: Beating): void;
  delete(stream: Beating): void;
  /** Streams beating. */
  size(): number;
  /** Stops the timer (shutdown); streams added after start it again. */
  close(): void;
}

/**
 * One timer for every open stream of a gateway (a timer per stream costs memory and wake-ups with 10,000 of them).
 * It runs only while a stream is open and never keeps the process alive.
 */
export function createHeartbeat(options: { intervalMs: number }): Heartbeat {
  const streams = new Set<Beating>();
  let timer: NodeJS.Timeout | undefined;
  const stop = (): void => {
    clearInterval(timer);
    timer = undefined;
  };
  return {
    add(stream) {
      streams.add(stream);
      if (!timer) {
        timer = setInterval(() => {
          for (const each of streams) each.beat();
        }, options.intervalMs);
        timer.unref();
      }
    },
    delete(stream) {
      streams.delete(stream);
      if (streams.size === 0) stop();
    },
    size: () => streams.size,
    close: stop,
  };
}
