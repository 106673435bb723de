import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import { adaptHandler } from '../executive/adapt-handler';
import { startResponder, type Route } from '../nats/start-responder';
import type { Contract } from './contract';
import { createCheckedEndpoints } from './create-checked-endpoints';
import type { ContractHandler, RefuseInput } from './create-contract-endpoints';

export interface ContractServiceOptions {
  nc: NatsConnection;
  logger: Logger;
  /** The NATS service's name (`$SRV.INFO.<name>`) and the replicas' queue group. */
  name: string;
  version: string;
  description?: string;
  topicPrefix: string;
  /** Replies go only to subjects below it (`_INBOX` by default): see startResponder. */
  inboxPrefix?: string;
  /** A handler that has not answered by then is answered 500. */
  handlerTimeout?: number;
  contract: Contract;
  /** One per operation, by its name. */
  handlers: Readonly<Record<string, ContractHandler>>;
  /** The reply to a call whose input breaks the contract: `400 REQUEST_INVALID` with every problem by default. */
  refuseInput?: RefuseInput;
}

export interface ContractService {
  /** One per operation, in the contract's order. */
  readonly subjects: readonly string[];
  readonly id: string;
  stop(): Promise<void>;
}

/**
 * Serves a contract's operations as one NATS micro service of their own, outside the executive (which serves them
 * through serveContract): the endpoints of createContractEndpoints, answered by startResponder, which guarantees
 * every request exactly one reply. It does not start when it cannot check an operation's input as the contract
 * declares (see createCheckedEndpoints): the error names the operation.
 */
export async function startContractService(options: ContractServiceOptions): Promise<ContractService> {
  const logger = options.logger.child({ component: 'contract-service' });
  const timeout = options.handlerTimeout ?? 1500;
  const routes: Route[] = createCheckedEndpoints(options).map(({ endpoint, handler }) => ({
    ...endpoint,
    handle: adaptHandler(handler, timeout, logger.child({ operation: endpoint.name })),
  }));
  return startResponder({
    nc: options.nc,
    logger,
    name: options.name,
    version: options.version,
    description: options.description,
    topicPrefix: options.topicPrefix,
    inboxPrefix: options.inboxPrefix,
    routes,
  });
}
