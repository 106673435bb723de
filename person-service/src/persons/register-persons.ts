import { measureReplyRoom, openStore, type ServiceContext, type Shutdown, type StoreSettings } from '@restbus/infra';
import type { Person } from './person';
import { createPersonHandlers } from './person-handlers';

export type PersonServiceSettings = StoreSettings;

/** Startup function: opens the persons bucket and registers a handler per operation of person-api.yml. */
export async function registerPersons(context: ServiceContext<PersonServiceSettings>): Promise<Shutdown> {
  const persons = await openStore<Person>(context.config, context.nc, 'persons', context.logger);
  const handlers = createPersonHandlers(persons, () => measureReplyRoom(context.nc.info?.max_payload));
  context.register({ method: 'get', uri: '/persons' }, handlers.listPersons);
  context.register({ method: 'post', uri: '/persons' }, handlers.createPerson);
  context.register({ method: 'delete', uri: '/persons' }, handlers.deleteAllPersons);
  context.register({ method: 'get', uri: '/persons/{personId}' }, handlers.getPerson);
  context.register({ method: 'put', uri: '/persons/{personId}' }, handlers.putPerson);
  context.register({ method: 'delete', uri: '/persons/{personId}' }, handlers.deletePerson);
  return () => persons.close();
}
