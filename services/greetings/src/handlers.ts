// Your handlers: rest-tool generate-service wrote this file once and never touches it again. Each operation of
// the API has one; the compiler says which are missing after the document changes (src/generated/contract.ts).
import { notImplemented, type ServiceContext } from '@restbus/infra';
import type { Handlers } from './generated/contract';

export function createHandlers(_context: ServiceContext<object>): Handlers {
  return {
    // GET /greetings/{name}
    greet: async () => notImplemented("greet"),
  };
}
