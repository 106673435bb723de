import { isJsonObject } from '@restbus/infra';
import type { ApiParameter, ParameterLocation } from '@restbus/openapi';
import { toHeaderText, type MappingContext } from './mapping-context';

/** A `request.parameters` entry of a descriptor. */
export interface Parameter {
  name: string;
  kind: 'URL' | 'QUERY' | 'HEADER';
  required: boolean;
  type: string;
  summary: string;
  default?: unknown;
}

/** Headers OpenAPI says header parameters must not describe (they are described elsewhere). */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

const KINDS: Record<Exclude<ParameterLocation, 'cookie'>, Parameter['kind']> = {
  path: 'URL',
  query: 'QUERY',
  header: 'HEADER',
};

const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** The first type a schema names (`["integer", "null"]` is an integer), else what its keywords imply. */
export function typeOf(schema: unknown): string {
  if (!isJsonObject(schema)) return 'string';
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type): type is string => typeof type === 'string' && type !== 'null',
  );
  const type = types[0] ?? (isJsonObject(schema.properties) ? 'object' : 'items' in schema ? 'array' : 'string');
  return PARAMETER_TYPES.includes(type) ? type : 'string';
}

/** The schema of a parameter: in `schema` (Swagger 2's inline one gathered there by the model), or in `content`. */
const schemaOfParameter = (parameter: ApiParameter): unknown => parameter.schema ?? parameter.content?.schema;

/**
 * A path, query or header parameter of the model as a descriptor's parameter (URL, QUERY, HEADER), with its type,
 * `required`, description as summary and default. Cookie parameters and the headers OpenAPI ignores are left out
 * with a warning. (Swagger 2's body and form parameters are the model's request body.)
 */
export function toParameter(context: MappingContext, raw: ApiParameter, where: string): Parameter | undefined {
  const { name, in: location } = raw;
  if (location === 'cookie') {
    context.warn(`${where}: the cookie parameter ${name} left out (the project format has no cookie parameters)`);
    return undefined;
  }
  if (location === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) {
    context.warn(`${where}: the header parameter ${name} left out (OpenAPI ignores ${name} as a parameter)`);
    return undefined;
  }
  const schema = schemaOfParameter(raw);
  let type = typeOf(schema);
  if (context.dialect === '2.0' && isJsonObject(schema) && schema.type === 'file') {
    context.warn(`${where}: the parameter ${name} is a file, imported as a string`);
    type = 'string';
  }
  const parameter: Parameter = {
    name,
    kind: KINDS[location],
    required: raw.required,
    type,
    summary: raw.description ?? '',
  };
  const fallback = isJsonObject(schema) ? schema.default : undefined;
  if (Array.isArray(fallback)) {
    context.warn(
      `${where}: the default of the parameter ${name} is a list, which the project format cannot hold; left out`,
    );
  } else if (fallback !== undefined) parameter.default = fallback;
  context.counts.parameters += 1;
  return parameter;
}

/** A parameter's value for a generated test: its example, default or first enum value, else one of its type. */
export function sampleParameter(raw: ApiParameter | undefined): string {
  if (!raw) return '1';
  const schema = schemaOfParameter(raw);
  const value =
    raw.examples[0]?.value ??
    (isJsonObject(schema)
      ? ((Array.isArray(schema.examples) ? schema.examples[0] : undefined) ??
        schema.example ??
        schema.default ??
        (Array.isArray(schema.enum) ? schema.enum[0] : undefined))
      : undefined);
  if (value !== undefined) return toHeaderText(value);
  const type = typeOf(schema);
  return type === 'integer' || type === 'number' ? '1' : type === 'boolean' ? 'true' : 'string';
}
