import { randomUUID } from 'node:crypto';
import type { NatsConnection } from 'nats';
import { readErrorMessage, RestbusError } from '@restbus/infra';
import type { Logger } from 'pino';
import type { components } from '../generated/api-types';
import type { Person } from './person';

/** The JetStream stream that keeps the person events (person-api.yml's `x-restbus-stream` names it). */
export const PERSON_EVENTS_STREAM = 'PERSON_EVENTS';

/** One acknowledged change of the collection, as `GET /persons/events` sends it. */
export type PersonEvent =
  { type: 'created' | 'updated'; id: string; person: Person } | { type: 'deleted'; id: string } | { type: 'cleared' };

// The document's PersonEvent schema must take every event published: this fails to compile when it stops to.
type Takes<Schema, T extends Schema> = T;
export type CheckedPersonEvent = Takes<components['schemas']['PersonEvent'], PersonEvent>;

export interface PersonEvents {
  /** Publishes one event after its write was acknowledged; never rejects (a failure is logged and counted). */
  publish(event: PersonEvent): Promise<void>;
  /** Resolves when the stream can be read (a client may open it); else throws STORE_UNAVAILABLE (503). */
  ready(): Promise<void>;
  /** Events that could not be published since the service started. */
  failures(): number;
}

export interface PersonEventsDeps {
  nc: NatsConnection;
  /** `<topicPrefix>.persons.events` */
  subject: string;
  /** The stream that keeps the events: each publish waits for its acknowledgement. Without it, a plain publish. */
  stream?: string;
  /** Makes the stream again when it is missing (deleted behind the service's back); then the event is sent again. */
  recreateStream?: () => Promise<void>;
  logger: Logger;
  /** How long a publish waits for the stream's acknowledgement before it counts as failed (ms). */
  timeoutMs?: number;
  /**
   * How long the write's reply waits for that acknowledgement (ms): a slow stream (its leader being elected) must
   * not hold a write past its handler's deadline, which would answer a stored write with an error.
   */
  ackWaitMs?: number;
}

const ACK_WAIT_MS = 500;

// A publish to a subject no stream takes has no responder: nats.js says "503".
const isStreamMissing = (err: unknown): boolean => /^503$|no responders|stream not found/i.test(readErrorMessage(err));

/**
 * The person events: each acknowledged create, update and delete, published once its write succeeded. A failed
 * publish does not undo or fail the write (it is stored; the reply says so): it is logged, with a running count.
 */
export function createPersonEvents(deps: PersonEventsDeps): PersonEvents {
  const logger = deps.logger.child({ component: 'person-events', subject: deps.subject });
  const js = deps.nc.jetstream({ timeout: deps.timeoutMs ?? 2000 });
  let failures = 0;

  async function send(data: Uint8Array, msgID: string): Promise<void> {
    if (deps.stream === undefined) {
      deps.nc.publish(deps.subject, data);
      return;
    }
    // The message id lets JetStream drop the copy when a publish whose answer was lost is sent again.
    await js.publish(deps.subject, data, { msgID, expect: { streamName: deps.stream } });
  }

  /** Sends the event, once more after making its stream again if that was missing; never rejects. */
  async function deliver(event: PersonEvent): Promise<void> {
    const data = new TextEncoder().encode(JSON.stringify(event));
    const msgID = randomUUID();
    try {
      try {
        await send(data, msgID);
      } catch (err) {
        if (!deps.recreateStream || !isStreamMissing(err)) throw err;
        logger.warn({ err }, `the stream ${deps.stream} is missing; making it again`);
        await deps.recreateStream();
        await send(data, msgID);
      }
    } catch (err) {
      failures++;
      logger.error({ err, event, failures }, 'could not publish a person event; the write stands');
    }
  }

  return {
    async publish(event) {
      // Sent at once, so one service's events keep the order of its writes; usually acknowledged well within the
      // wait, and otherwise left to finish (or be counted) on its own.
      const delivered = deliver(event);
      let timer: NodeJS.Timeout | undefined;
      const waited = new Promise<void>((resolve) => (timer = setTimeout(resolve, deps.ackWaitMs ?? ACK_WAIT_MS)));
      await Promise.race([delivered, waited]);
      clearTimeout(timer);
    },
    async ready() {
      if (deps.stream === undefined) return;
      try {
        const jsm = await deps.nc.jetstreamManager({ timeout: deps.timeoutMs ?? 2000 });
        try {
          await jsm.streams.info(deps.stream);
        } catch (err) {
          if (!deps.recreateStream || !isStreamMissing(err)) throw err;
          await deps.recreateStream();
        }
      } catch (err) {
        throw new RestbusError(
          'STORE_UNAVAILABLE',
          `the events stream (${deps.stream}) is not available just now; retry shortly`,
          { cause: err },
        );
      }
    },
    failures: () => failures,
  };
}
