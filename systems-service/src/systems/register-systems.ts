import { openStore, type ServiceContext, type Shutdown, type StoreKind } from '@restbus/infra';
import type { System } from './system';
import { createSystemsHandlers } from './systems-handlers';

export interface SystemsServiceSettings {
  store: StoreKind;
}

/** Startup function: opens the systems bucket and registers getSystems, postSystems, deleteSystems and getSystem. */
export async function registerSystems(context: ServiceContext<SystemsServiceSettings>): Promise<Shutdown> {
  const systems = await openStore<System>(context.config.store, context.nc, 'systems');
  const { getSystems, postSystems, deleteSystems, getSystem } = createSystemsHandlers(systems);
  context.register({ method: 'get', uri: '/systems' }, getSystems);
  context.register({ method: 'post', uri: '/systems' }, postSystems);
  context.register({ method: 'delete', uri: '/systems' }, deleteSystems);
  context.register({ method: 'get', uri: '/systems/{systemId}' }, getSystem);
  return () => systems.close();
}
