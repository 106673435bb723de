import type { FromSchema } from 'json-schema-to-ts';
import type {
  environmentSchema,
  fieldListSchema,
  methodSchema,
  projectConfigSchema,
  requestParameterSchema,
  responseSchema,
  serverConfigSchema,
  serviceSchema,
  testCaseSchema,
} from './schemas';

// The shapes of the project's files, derived from the schemas that validate them: a file that passed loadProject
// has exactly this type, so readers need no casts and no "is it an object?" helpers.

/** A `service.yml` (`urlPattern` folded into `uriTemplate` by the loader). */
export type ServiceDocument = FromSchema<typeof serviceSchema>;
export type MethodName = 'GET' | 'PUT' | 'POST' | 'DELETE';
export type MethodDescriptor = FromSchema<typeof methodSchema>;
export type RequestParameter = FromSchema<typeof requestParameterSchema>;
export type ResponseDescriptor = FromSchema<typeof responseSchema>;
export type TestCase = FromSchema<typeof testCaseSchema>;
/** `headers` and `cookies` lists: `[{ field, content }]`, or null where the YAML left the key empty. */
export type FieldList = FromSchema<typeof fieldListSchema>;
/** The project's `config.yml`. */
export type ProjectConfig = FromSchema<typeof projectConfigSchema>;
/** `server/config.yml`. */
export type ServerConfig = FromSchema<typeof serverConfigSchema>;
/** One environment of `server/config.yml`, as written. */
export type EnvironmentSettings = FromSchema<typeof environmentSchema>;
