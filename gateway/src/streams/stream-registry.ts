import { RestbusError } from '@restbus/infra';
import type { StreamClient } from './stream-client';
import type { StreamCounters } from './stream-counters';

/** A place for one stream, taken before the service is asked so that the maximum holds while it answers. */
export interface StreamSlot {
  /** The stream opened: the registry ends it on endAll, and leaves its feed (`detach`) when it ends. */
  track(client: StreamClient, detach: () => void): void;
  /** The stream did not open (the service said no, the feed failed): the place is free again. */
  release(): void;
}

export interface StreamRegistry {
  /** Takes a place; throws STREAMS_FULL (with Retry-After) when the maximum of open streams is reached. */
  reserve(): StreamSlot;
  /** Streams open or about to open. */
  open(): number;
  /** Ends every open stream: shutdown, or a reload that changes the streams. */
  endAll(): void;
}

/** The open streams of a gateway, at most `maxOpen` at once. */
export function createStreamRegistry(options: { maxOpen: number; counters: StreamCounters }): StreamRegistry {
  const { maxOpen, counters } = options;
  const clients = new Set<StreamClient>();
  let taken = 0;
  return {
    reserve() {
      if (taken >= maxOpen) {
        counters.refused();
        throw new RestbusError('STREAMS_FULL', `the gateway serves its maximum of ${maxOpen} streams`, {
          headers: { 'retry-after': '5' },
        });
      }
      taken++;
      let done = false;
      const free = (): void => {
        if (done) return;
        done = true;
        taken--;
      };
      return {
        track(client, detach) {
          clients.add(client);
          client.onEnd(() => {
            clients.delete(client);
            detach();
            free();
          });
        },
        release: free,
      };
    },
    open: () => taken,
    endAll() {
      for (const client of [...clients]) client.end();
    },
  };
}
