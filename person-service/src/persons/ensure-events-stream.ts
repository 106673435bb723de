import { DiscardPolicy, nanos, StorageType, type NatsConnection, type StreamConfig } from 'nats';
import { readErrorMessage } from '@restbus/infra';
import type { Logger } from 'pino';

const DAY_MS = 24 * 60 * 60 * 1000;
const REQUEST_MS = 2000;
// As long as the store waits for JetStream at start: a cluster coming up may still be electing its leaders.
const OPEN_WAIT_MS = 30_000;

export interface EventsStreamOptions {
  name: string;
  subject: string;
  /** As many as the service's bucket has: the events are as safe as the state they describe. */
  replicas: number;
  logger: Logger;
  /** How long events are kept (ms), and how many at most: what a client may resume after. */
  maxAgeMs?: number;
  maxMessages?: number;
}

const isMissing = (err: unknown): boolean => /stream not found/i.test(readErrorMessage(err));
const isTaken = (err: unknown): boolean => /already in use/i.test(readErrorMessage(err));
const isUnavailable = (err: unknown): boolean =>
  /timeout|no responders|temporarily unavailable|no suitable peers|leader/i.test(readErrorMessage(err));

/**
 * Creates the stream that keeps a service's events, or brings one that exists to the subject, limits and replicas
 * asked (never lowering its replicas): run at every start, by every replica of the service at once.
 */
export async function ensureEventsStream(nc: NatsConnection, options: EventsStreamOptions): Promise<void> {
  const deadline = Date.now() + OPEN_WAIT_MS;
  for (;;) {
    try {
      return await ensureOnce(nc, options);
    } catch (err) {
      if (!isUnavailable(err) || Date.now() > deadline) throw err;
      await new Promise((resolve) => setTimeout(resolve, 250));
    }
  }
}

async function ensureOnce(nc: NatsConnection, options: EventsStreamOptions): Promise<void> {
  const logger = options.logger.child({ component: 'person-events', stream: options.name });
  const jsm = await nc.jetstreamManager({ timeout: REQUEST_MS });
  const wanted: Partial<StreamConfig> = {
    subjects: [options.subject],
    max_age: nanos(options.maxAgeMs ?? DAY_MS),
    max_msgs: options.maxMessages ?? 100_000,
    discard: DiscardPolicy.Old,
  };
  let config: StreamConfig;
  try {
    config = (await jsm.streams.info(options.name)).config;
  } catch (err) {
    if (!isMissing(err)) throw err;
    try {
      await jsm.streams.add({
        ...wanted,
        name: options.name,
        storage: StorageType.File,
        num_replicas: options.replicas,
      });
      logger.info({ replicas: options.replicas }, `created the stream ${options.name} on ${options.subject}`);
      return;
    } catch (addErr) {
      // Another replica of the service made it first: bring that one up to date as any existing stream.
      if (!isTaken(addErr)) throw addErr;
      config = (await jsm.streams.info(options.name)).config;
    }
  }
  const replicas = Math.max(config.num_replicas, options.replicas);
  const same =
    config.subjects?.length === 1 &&
    config.subjects[0] === options.subject &&
    config.max_age === wanted.max_age &&
    config.max_msgs === wanted.max_msgs &&
    config.discard === wanted.discard &&
    config.num_replicas === replicas;
  if (same) return;
  await jsm.streams.update(options.name, { ...config, ...wanted, num_replicas: replicas });
  logger.info({ replicas }, `updated the stream ${options.name} to the subject, limits and replicas asked`);
}
