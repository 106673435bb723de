// What the other packages use of @restbus/openapi, and nothing more: reading an API description into its typed
// model, the diagnostics it gives, and the checks a router needs.
export type {
  ApiEncoding,
  ApiExample,
  ApiHeader,
  ApiMedia,
  ApiModel,
  ApiOperation,
  ApiParameter,
  ApiRequestBody,
  ApiResponse,
  ApiSecurityScheme,
  ApiSecurityUse,
  ApiStream,
  Dialect,
  JsonSchema,
  ParameterLocation,
} from './api-model';
export { buildApiModel, describeEvents, type BuildOptions } from './build-api-model';
export { nameOperation } from './name-operation';
export { readApiDescription, type ApiDescription, type ReadOptions } from './read-api-description';
export { checkRoutes, type CheckedRoutes } from './check-routes';
export { checkPathTemplate } from './check-path-template';
export { detectDialect } from './detect-dialect';
export {
  countDiagnostics,
  escapeControlCharacters,
  formatDiagnostic,
  formatPath,
  toPrintable,
  type Diagnostic,
} from './diagnostic';
export { LOAD_LIMITS, type LoadLimits } from './load-limits';
export { valueAt } from './value-at';
export { readSourceFile, type SourceFile } from './read-source-file';
export { createSourceLocator, type SourceLocator } from './create-source-locator';
export {
  checkSubjectLength,
  findControlCharacter,
  MAX_STREAM_SUBJECT_BYTES,
  MAX_SUBJECT_BYTES,
  MAX_SUBJECT_PREFIX_BYTES,
  NATS_MAX_CONTROL_LINE,
} from './subject-limits';
