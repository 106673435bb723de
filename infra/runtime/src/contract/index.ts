// The runtime generated services (rest-tool generate-service) stand on.
export { CONTRACT_SCHEMA_ROOT_ID } from './contract';
export type { Contract, ContractOperation, ContractParameter, ContractSchema } from './contract';
export type {
  CallInput,
  ContractClient,
  ContractHandlers,
  HandlerReply,
  OperationHandler,
  OperationInput,
  OperationReply,
  StatusOf,
} from './operation-types';
export { compileInputChecks } from './compile-input-checks';
export type { CheckedInput, InputCheck } from './compile-input-checks';
export { startContractService } from './start-contract-service';
export type { ContractService, ContractServiceOptions } from './start-contract-service';
export { toOperationSubject } from './to-operation-subject';
export { createContractEndpoints } from './create-contract-endpoints';
export { createWordedRefusal } from './create-worded-refusal';
export { fromCallbackHandler, readCheckedBody } from './from-callback-handler';
export type { CallbackOperationHandler } from './from-callback-handler';
export type { ContractEndpointsOptions, ContractHandler, InputRefusal, RefuseInput } from './create-contract-endpoints';
export { createContractClient } from './create-contract-client';
export type { CallParts, ContractClientOptions } from './create-contract-client';
export { serveContract } from './serve-contract';
export type { ServeContractOptions } from './serve-contract';
export { notImplemented } from './not-implemented';
export { jsonTextOf } from './json-text-of';
export type { JsonTextOf } from './json-text-of';
export type { NotImplementedReply } from './not-implemented';
