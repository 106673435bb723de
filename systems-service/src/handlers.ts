// systems-service's handlers, one per operation of systems-api.yml (rest-tool generate-service wrote this file once
// as stubs and never touches it again; the compiler names a missing one after the document changes). The
// specification's handlers are upstream-style `(data, cb)` functions (src/systems/systems-handlers.ts); here each
// answers its operation.
import { fromCallbackHandler, type Collection } from '@restbus/infra';
import type { Handlers } from './generated/contract';
import type { System } from './systems/system';
import { createSystemsHandlers } from './systems/systems-handlers';

export function createHandlers(systems: Collection<System>, replyRoom: () => number): Handlers {
  const { getSystems, postSystems, deleteSystems, getSystem } = createSystemsHandlers(systems, replyRoom);
  return {
    getSystems: fromCallbackHandler(getSystems),
    postSystems: fromCallbackHandler(postSystems),
    deleteSystems: fromCallbackHandler(deleteSystems),
    getSystemsBySystemId: fromCallbackHandler(getSystem),
  };
}
