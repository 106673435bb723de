import type { ServiceContext, Startup } from '../executive/create-executive';
import type { Contract } from './contract';
import { createCheckedEndpoints } from './create-checked-endpoints';
import type { ContractHandler, RefuseInput } from './create-contract-endpoints';

/** What a contract is served with; the NATS service's name and version are the executive's (a process is one service). */
export interface ServeContractOptions<C> {
  contract: Contract;
  /** Makes the handlers once the service is connected (open a store, read the config …). */
  createHandlers(
    context: ServiceContext<C>,
  ): Readonly<Record<string, ContractHandler>> | Promise<Readonly<Record<string, ContractHandler>>>;
  /** The reply to a call whose input breaks the contract: `400 REQUEST_INVALID` with every problem by default. */
  refuseInput?: RefuseInput;
}

/**
 * A startup function of the executive that serves a contract: it registers an endpoint per operation
 * (createContractEndpoints) with the executive, which answers them as its one NATS service beside any endpoint
 * other startups register, and stops them with the others. The service does not start when it cannot check an
 * operation's input as the contract declares (see createCheckedEndpoints): the error names the operation.
 */
export function serveContract<C>(options: ServeContractOptions<C>): Startup<C> {
  return async (context) => {
    const endpoints = createCheckedEndpoints({
      topicPrefix: context.config.topicPrefix,
      contract: options.contract,
      handlers: await options.createHandlers(context),
      refuseInput: options.refuseInput,
    });
    for (const { endpoint, handler } of endpoints) context.register(endpoint, handler);
  };
}
