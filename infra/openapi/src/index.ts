// What the other packages use of the OpenAPI model, and nothing more.
export type {
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
  Dialect,
  JsonSchema,
  ParameterLocation,
} from './api-model';
export { buildApiModel, type BuildOptions } from './build-api-model';
export { nameOperation } from './name-operation';
