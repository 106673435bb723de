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
import { createHandlers } from '../handlers';
import type { System } from './system';

export type SystemsServiceSettings = StoreSettings;

/**
 * Startup function: opens the systems bucket and registers getSystems, postSystems, deleteSystems and getSystem as
 * the operations of systems-api.yml's contract (src/generated, from `rest-tool generate-service`).
 */
export async function registerSystems(context: ServiceContext<SystemsServiceSettings>): Promise<Shutdown> {
  const systems = await openStore<System>(context.config, context.nc, 'systems', context.logger);
  const handlers = createHandlers(systems, () => measureReplyRoom(context.nc.info?.max_payload));
  // The generated register() would do, but for the words of the 400s systems-service's clients know.
  await serveContract<SystemsServiceSettings>({
    contract,
    createHandlers: () => handlers,
    refuseInput: createWordedRefusal('system'),
  })(context);
  return () => systems.close();
}
