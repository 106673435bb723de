import type { NatsConnection, Subscription } from 'nats';
import type { Logger } from '@restbus/infra';
import { FanOut } from './fan-out';
import { MESSAGE, type Feed } from './feed';
import { createStreamEvent } from './stream-event';

/** A core NATS subscription: events as they come, without ids. */
export class CoreFeed implements Feed {
  // Only a resuming client (of a JetStream stream) holds events: here every client is live.
  readonly fanOut = new FanOut(Infinity);
  readonly ready: Promise<void>;
  private readonly subscription: Subscription;

  constructor(nc: NatsConnection, subject: string, logger: Logger) {
    this.subscription = nc.subscribe(subject, {
      callback: (err, msg) => {
        if (err) {
          logger.warn({ err, subject }, 'stream subscription failed');
          return;
        }
        this.fanOut.send(createStreamEvent({ event: MESSAGE, payload: msg.data }));
      },
    });
    // Subscribed at the server before the client is told it is live.
    this.ready = nc.flush();
  }

  resume(): Promise<void> {
    return Promise.resolve();
  }

  renew(): void {
    // nats.js subscribes again on the server it reconnects to.
  }

  stop(): void {
    this.subscription.unsubscribe();
  }
}
