import { measureReplyRoom, openStore, type ServiceContext, type Shutdown, type StoreSettings } from '@restbus/infra';
import type { System } from './system';
import { createSystemsHandlers } from './systems-handlers';

export type SystemsServiceSettings = StoreSettings;

/** Startup function: opens the systems bucket and registers getSystems, postSystems, deleteSystems and getSystem. */
export async function registerSystems(context: ServiceContext<SystemsServiceSettings>): Promise<Shutdown> {
  const systems = await openStore<System>(context.config, context.nc, 'systems', context.logger);
  const { getSystems, postSystems, deleteSystems, getSystem } = createSystemsHandlers(systems, () =>
    measureReplyRoom(context.nc.info?.max_payload),
  );
  context.register({ method: 'get', uri: '/systems' }, getSystems);
  context.register({ method: 'post', uri: '/systems' }, postSystems);
  context.register({ method: 'delete', uri: '/systems' }, deleteSystems);
  context.register({ method: 'get', uri: '/systems/{systemId}' }, getSystem);
  return () => systems.close();
}
