// What the other packages use of infra, and nothing more: the rest is infra's own (the tests reach it by path).
export { runMain, onShutdownSignal } from './app/run-main';
export { stopWithParent } from './app/stop-with-parent';
export { readPackageVersion } from './app/read-version';
export { coalesceRuns } from './app/coalesce-runs';
export { loadConfig } from './config/load-config';
export { toNatsServersAndAuth } from './nats/nats-connect-options';
export {
  createHttpLimitSettings,
  inboxPrefixSetting,
  logFormatSetting,
  logLevelSetting,
  natsConnectionSettings,
  toHttpLimits,
  toNatsLinkOptions,
  topicPrefixSetting,
} from './config/common-settings';
export type { HttpLimitConfig, NatsConnectionConfig } from './config/common-settings';
export type { ArgumentSpec, DeclinedFlag, LoadConfigOptions, ProgramSpec, SettingSpec } from './config/load-config';
export { RestbusError, isRestbusError } from './errors/restbus-error';
export type { ErrorCode, RequestProblem, RestbusErrorOptions } from './errors/restbus-error';
export { REQUEST_MISTAKES, refuseRequest } from './errors/request-mistakes';
export { readErrorCode, readErrorMessage } from './errors/read-caught-error';
export { isJsonObject, type JsonObject } from './json/is-json-object';
export type { RequestMistake, RequestMistakeName } from './errors/request-mistakes';
export { createLogger } from './logging/create-logger';
export type { LogFormat, Logger, LoggerOptions } from './logging/create-logger';
export { describeFailureLine, logRequestFailure } from './logging/log-request-failure';
export type { FailureLevel, FailureLine } from './logging/log-request-failure';
export { createNatsLink } from './nats/create-nats-link';
export type { NatsLink, NatsLinkOptions } from './nats/create-nats-link';
export { onConnectionMove } from './nats/create-moving-connection';
export { readHeapLive } from './process/read-heap-live';
export type { NatsSecurity, NatsTlsFiles } from './nats/to-nats-security-options';
export { pingService } from './healthcheck/ping-service';
export { decodeLargeResponseMessage, decodeResponseMessage, describeSchemaErrors, encodeMessage } from './wire/codec';
export {
  DEADLINE_HEADER,
  MESSAGE_TYPE_HEADER,
  RPC_REQUEST,
  SERVICE_ERROR_CODE_HEADER,
  SERVICE_ERROR_HEADER,
  readCarriedBudget,
  setCarriedBudget,
} from './wire/headers';
export { HTTP_METHODS } from './wire/schemas';
export { toTopic } from './wire/topic';
export { replyError, replyJson } from './wire/replies';
export { jsonText, type JsonText } from './wire/json-text';
export { BODY_APART, REPLY_FORM_HEADER, decodeReplyApart, defaultContentType } from './wire/reply-apart';
export { createMessagePrefix, encodeRequestMessage } from './wire/encode-request-message';
export { readCallerIdentity } from './wire/read-caller-identity';
export type {
  CallerIdentity,
  EndpointDesc,
  HeaderValue,
  HttpMethod,
  IncomingRequest,
  QueryValue,
  RequestMessage,
  ResponseDesc,
  ResponseMessage,
} from './wire/types';
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
export type { Collection, Page, PageRequest, Read } from './store/collection';
export { kvReplicasSetting, openStore, readsSetting, storeSetting } from './store/open-store';
export { openBucket } from './store/open-bucket';
export type { StoreSettings } from './store/open-store';
export { STALE_HEADER, describePage, measureReplyRoom, readPageRequest } from './store/page-query';
export { describeInvalidId } from './store/record-id';
export type { StoreKind } from './store/open-store';
export { readJsonBody } from './wire/read-json-body';
export { MAX_JSON_DEPTH } from './limits/max-json-depth';
export { isNestedDeeperThan } from './wire/find-json-depth';
export { JSON_SLICE_LENGTH, parseJsonInSlices } from './wire/parse-json-in-slices';
export { findAmbiguousJson, type JsonAmbiguity } from './wire/find-ambiguous-json';
export type { Parsed } from './wire/read-json-body';
export { sendError } from './http/send-error';
export { isJsonMediaType } from './http/is-json-media-type';
export { describeListenError } from './http/describe-listen-error';
export { listenHttpServer, type Listening } from './http/listen-http-server';
export { createHttpServer, DEFAULT_HTTP_LIMITS } from './http/create-http-server';
export type { CreateHttpServerOptions, HttpLimits } from './http/create-http-server';
export type { ListenTarget } from './http/describe-listen-error';
export { SSE_COMMENT, SSE_HEADERS, formatSseEvent } from './http/event-stream/format-sse-event';
export type { OutgoingSseEvent } from './http/event-stream/format-sse-event';
export { readResumePoint } from './http/event-stream/read-resume-point';
export { allowLinearRegExpFallback, linearPatternEngine } from './validation/linear-pattern-engine';
export { addLinearUniqueItems } from './validation/add-linear-unique-items';
export {
  LISTED_TEXT_LENGTH,
  MAX_LISTED_PROBLEMS,
  describeRequestProblems,
  findSchemaErrors,
} from './validation/find-schema-errors';
export type { ValidatorPair } from './validation/find-schema-errors';
export { createSchemaCompilers } from './validation/create-schema-compilers';
export { adaptOpenApiSchema } from './validation/adapt-openapi-schema';
export type { SchemaCompilerOptions, SchemaCompilers, SchemaDialect } from './validation/create-schema-compilers';
export { compileInputCheck, createInputCompilers } from './contract/compile-input-checks';
export type { InputCompilers, InputOperation, InputResult, OperationInputCheck } from './contract/compile-input-checks';
export * from './contract/index';
export { startTracing } from './tracing/start-tracing';
export type { Tracing } from './tracing/start-tracing';
export { readTracingSettings } from './tracing/tracing-settings';
export type { TracingSettings } from './tracing/tracing-settings';
export { activeTracer, endSpan, extractNatsContext, injectNatsContext } from './tracing/spans';
export { startHttpServerSpan } from './tracing/start-http-server-span';
