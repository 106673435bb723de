export { runMain, onShutdownSignal } from './app/run-main';
export { readPackageVersion } from './app/read-version';
export { loadConfig } from './config/load-config';
export { toNatsServersAndAuth } from './nats/nats-connect-options';
export {
  createHttpLimitSettings,
  inboxPrefixSetting,
  logFormatSetting,
  logLevelSetting,
  natsCaSetting,
  natsCertSetting,
  natsConnectionSettings,
  natsCredsSetting,
  natsKeySetting,
  natsTlsSetting,
  natsUriSetting,
  toHttpLimits,
  toNatsLinkOptions,
  topicPrefixSetting,
} from './config/common-settings';
export type { HttpLimitConfig, NatsConnectionConfig } from './config/common-settings';
export type { ArgumentSpec, DeclinedFlag, LoadConfigOptions, ProgramSpec, SettingSpec } from './config/load-config';
export { ErrorCodes, RestbusError, isRestbusError } from './errors/restbus-error';
export type { ErrorCode } from './errors/restbus-error';
export { createLogger } from './logging/create-logger';
export type { LogFormat, Logger, LoggerOptions } from './logging/create-logger';
export { createNatsLink } from './nats/create-nats-link';
export type { NatsLink, NatsLinkOptions } from './nats/create-nats-link';
export type { NatsSecurity, NatsTlsFiles } from './nats/to-nats-security-options';
export { startResponder } from './nats/start-responder';
export type { Responder, ResponderOptions, Route, RouteContext, RouteHandler } from './nats/start-responder';
export { pingService } from './healthcheck/ping-service';
export {
  decodeRequestMessage,
  decodeResponseMessage,
  describeSchemaErrors,
  encodeMessage,
  isResponseMessage,
} from './wire/codec';
export {
  MESSAGE_TYPE_HEADER,
  RPC_REQUEST,
  RPC_RESPONSE,
  SERVICE_ERROR_CODE_HEADER,
  SERVICE_ERROR_HEADER,
  createRequestHeaders,
  createResponseHeaders,
} from './wire/headers';
export { HTTP_METHODS, requestMessageSchema, responseMessageSchema } from './wire/schemas';
export { assertSafeTopic, toTopic } from './wire/topic';
export { replyError, replyJson } from './wire/replies';
export type {
  EndpointDesc,
  HeaderValue,
  HttpMethod,
  IncomingRequest,
  QueryValue,
  RequestMessage,
  ResponseDesc,
  ResponseMessage,
} from './wire/types';
export { adaptHandler } from './executive/adapt-handler';
export type { Callback, Handler } from './executive/adapt-handler';
export { createExecutive } from './executive/create-executive';
export type {
  Executive,
  ExecutiveOptions,
  ServiceConfig,
  ServiceContext,
  Shutdown,
  Startup,
} from './executive/create-executive';
export { runExecutive } from './executive/run-executive';
export { createMemoryCollection } from './store/collection';
export type { Collection, Page, PageRequest, Read } from './store/collection';
export { openKvCollection } from './store/kv-collection';
export type { KvCollectionOptions } from './store/kv-collection';
export { kvReplicasSetting, openStore, readsSetting, storeSetting } from './store/open-store';
export type { StoreSettings } from './store/open-store';
export {
  DEFAULT_PAGE_LIMIT,
  MAX_PAGE_LIMIT,
  STALE_HEADER,
  describePage,
  measureReplyRoom,
  readPageRequest,
} from './store/page-query';
export { describeInvalidId, MAX_ID_BYTES } from './store/record-id';
export type { StoreKind } from './store/open-store';
export { readJsonBody } from './wire/read-json-body';
export { MAX_JSON_DEPTH, isNestedDeeperThan } from './wire/find-json-depth';
export type { Parsed } from './wire/read-json-body';
export { sendError, sendJson } from './http/send-error';
export { isJsonMediaType } from './http/is-json-media-type';
export { describeListenError } from './http/describe-listen-error';
export { createHttpServer, DEFAULT_HTTP_LIMITS } from './http/create-http-server';
export type { CreateHttpServerOptions, HttpLimits } from './http/create-http-server';
export type { ListenTarget } from './http/describe-listen-error';
