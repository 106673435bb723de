import {
  createWordedRefusal,
  measureReplyRoom,
  openStore,
  serveContract,
  type ServiceContext,
  type Shutdown,
  type StoreSettings,
} from '@restbus/infra';
import { contract } from '../generated/contract';
import { createPersonHandlers } from '../handlers';
import type { Person } from './person';

export type PersonServiceSettings = StoreSettings;

/**
 * Startup function: opens the persons bucket and serves person-api.yml's contract (src/generated, from
 * `rest-tool generate-service`) with the person handlers, an endpoint per operation.
 */
export async function registerPersons(context: ServiceContext<PersonServiceSettings>): Promise<Shutdown> {
  const persons = await openStore<Person>(context.config, context.nc, 'persons', context.logger);
  const handlers = createPersonHandlers(persons, () => measureReplyRoom(context.nc.info?.max_payload));
  // The generated register() would do, but for the words of the 400s person-service's clients know.
  await serveContract<PersonServiceSettings>({
    contract,
    createHandlers: () => handlers,
    refuseInput: createWordedRefusal('person'),
  })(context);
  return () => persons.close();
}
