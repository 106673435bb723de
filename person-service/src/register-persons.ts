import {
  createWordedRefusal,
  measureReplyRoom,
  openStore,
  serveContract,
  type ServiceContext,
  type Shutdown,
  type StoreSettings,
} from '@restbus/infra';
import { contract } from './generated/contract';
import { createPersonHandlers } from './handlers';
import { ensureEventsStream } from './persons/ensure-events-stream';
import type { Person } from './persons/person';
import { createPersonEvents, PERSON_EVENTS_STREAM } from './persons/person-events';

export type PersonServiceSettings = StoreSettings;

const BUCKET = 'persons';

/**
 * Startup function: opens the persons bucket and, beside it, the stream its changes are published to, and serves
 * person-api.yml's contract (src/generated, from `rest-tool generate-service`) with the person handlers, an
 * endpoint per operation.
 */
export async function registerPersons(context: ServiceContext<PersonServiceSettings>): Promise<Shutdown> {
  const { config, nc, logger } = context;
  const persons = await openStore<Person>(config, nc, BUCKET, logger);
  const subject = `${config.topicPrefix}.persons.events`;
  let stream: string | undefined;
  let recreateStream: (() => Promise<void>) | undefined;
  // The memory store needs no JetStream: its events are plain messages, live only, with nothing to resume from.
  if (config.store === 'jetstream') {
    // As many replicas as the bucket got (min(3, peers), or --kvReplicas, stepped down when JetStream has no room).
    const jsm = await nc.jetstreamManager();
    const replicas = (await jsm.streams.info(`KV_${BUCKET}`)).config.num_replicas;
    stream = PERSON_EVENTS_STREAM;
    recreateStream = () => ensureEventsStream(nc, { name: PERSON_EVENTS_STREAM, subject, replicas, logger });
    await recreateStream();
  }
  const events = createPersonEvents({ nc, subject, stream, recreateStream, logger });
  const handlers = createPersonHandlers(persons, () => measureReplyRoom(nc.info?.max_payload), events);
  // The generated register() would do, but for the words of the 400s person-service's clients know.
  await serveContract<PersonServiceSettings>({
    contract,
    createHandlers: () => handlers,
    refuseInput: createWordedRefusal('person'),
  })(context);
  return () => persons.close();
}
