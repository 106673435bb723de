import { Events, type NatsConnection } from 'nats';

// How long a confirmation with the stream stands: writes this replica was not told of (by another program, or
// announced while its connection was down) show in its reads at most this late.
export const CONFIRMED_FOR_MS = 1000;

/**
 * What one replica knows of the writes to its bucket without asking the stream. Every replica of a service
 * announces each write on core NATS once JetStream has acknowledged it and before it answers the client, so a
 * replica that later gets a read from that client has heard of the write (the announcement left the writer first,
 * on the bus's shortest path) and can wait until its copy reaches it.
 */
export interface ReadHorizon {
  /** The highest sequence this replica has heard was acknowledged. */
  readonly known: number;
  /**
   * True when a read must confirm the copy with the stream first: nothing confirmed for `CONFIRMED_FOR_MS`, or
   * since a delete (whose sequence nats.js does not return) or since the connection was lost.
   */
  mustConfirm(): boolean;
  /** Records a confirmation that the copy reached `sequence`, asked at `askedAt` (performance.now()). */
  confirmed(sequence: number, askedAt: number): void;
  /** Tells every replica of a write acknowledged at `sequence`; undefined when the sequence is not known. */
  announce(sequence: number | undefined): void;
  stop(): void;
}

export function startReadHorizon(nc: NatsConnection, bucket: string): ReadHorizon {
  const subject = `restbus.store.${bucket}.written`;
  let known = 0;
  let confirmedAt = -Infinity;
  // A confirmation counts only when it was asked after the last event that needs one.
  let unsureSince = 0;
  let stopped = false;
  const hear = (notice: string): void => {
    const sequence = Number(notice);
    if (notice === '' || !Number.isSafeInteger(sequence)) unsureSince = performance.now();
    else known = Math.max(known, sequence);
  };
  // Set when the server refuses the subscription (a permissions file that leaves it out): a replica that cannot
  // hear of writes confirms every read with the stream.
  let deaf = false;
  const subscription = nc.subscribe(subject, {
    callback: (err, msg) => {
      if (err) deaf = true;
      else hear(msg.string());
    },
  });
  // Announcements sent while this replica was away are lost to it.
  void (async () => {
    for await (const status of nc.status()) {
      if (stopped) break;
      if (status.type === Events.Disconnect || status.type === Events.Reconnect) unsureSince = performance.now();
    }
  })().catch(() => undefined);

  return {
    get known() {
      return known;
    },
    mustConfirm: () => deaf || confirmedAt <= unsureSince || performance.now() - confirmedAt >= CONFIRMED_FOR_MS,
    confirmed(sequence, askedAt) {
      known = Math.max(known, sequence);
      confirmedAt = Math.max(confirmedAt, askedAt);
    },
    announce(sequence) {
      const notice = sequence === undefined ? '' : String(sequence);
      hear(notice);
      nc.publish(subject, notice);
    },
    stop() {
      stopped = true;
      subscription.unsubscribe();
    },
  };
}
