import type { StreamClient } from './stream-client';
import { createGapEvent, type StreamEvent } from './stream-event';

export interface HeldClient extends StreamClient {
  /**
   * Hands what was kept, then every later event, to the real client (opened once the service said yes); events up
   * to `upTo` (the snapshot's stream sequence) are left out: the snapshot has them.
   */
  release(client: StreamClient, upTo?: number): void;
}

/**
 * A stand-in attached to a feed before the service is asked (the forwarded GET): events published while the
 * service answers are kept, so that none falls between its snapshot and the stream. At most `maxEvents`; past that
 * the real client gets a gap event in their place.
 */
export function createHeldClient(options: { maxEvents: number }): HeldClient {
  let kept: StreamEvent[] = [];
  let missed = 0;
  let firstMissed: number | undefined;
  let lastMissed: number | undefined;
  let target: StreamClient | undefined;
  let ended = false;
  const endCallbacks: (() => void)[] = [];
  return {
    deliver(event) {
      if (target) target.deliver(event);
      else if (ended) return;
      else if (kept.length < options.maxEvents) kept.push(event);
      else {
        missed++;
        if (event.seq !== undefined) {
          firstMissed ??= event.seq;
          lastMissed = event.seq;
        }
      }
    },
    drained: () => target?.drained?.(),
    release(client, upTo) {
      for (const event of kept) {
        if (upTo === undefined || event.seq === undefined || event.seq > upTo) client.deliver(event);
      }
      if (missed > 0) client.deliver(createGapEvent(missed, firstMissed, lastMissed));
      kept = [];
      target = client;
      for (const callback of endCallbacks.splice(0)) client.onEnd(callback);
    },
    end() {
      if (target) target.end();
      else if (!ended) {
        ended = true;
        kept = [];
        for (const callback of endCallbacks.splice(0)) callback();
      }
    },
    onEnd(callback) {
      if (target) target.onEnd(callback);
      else if (ended) callback();
      else endCallbacks.push(callback);
    },
  };
}
