import { toHeaderText, type MappingContext } from './mapping-context';
import { isObject, type Refs, type Json } from './refs';

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

const KINDS: Record<string, Parameter['kind']> = { path: 'URL', query: 'QUERY', header: 'HEADER' };

const PARAMETER_TYPES = ['string', 'number', 'integer', 'boolean', 'object', 'array'];

/** The first type a schema names (`["integer", "null"]` is an integer), else what its keywords imply. */
export function typeOf(schema: unknown): string {
  if (!isObject(schema)) return 'string';
  const types = (Array.isArray(schema.type) ? schema.type : [schema.type]).filter(
    (type): type is string => typeof type === 'string' && type !== 'null',
  );
  const type = types[0] ?? (isObject(schema.properties) ? 'object' : 'items' in schema ? 'array' : 'string');
  return PARAMETER_TYPES.includes(type) ? type : 'string';
}

/** The parameters of an operation: those of its path item, replaced by its own of the same name and location. */
export function mergeParameters(refs: Refs, fromPath: unknown, fromOperation: unknown): Json[] {
  const merged = new Map<string, Json>();
  for (const raw of [
    ...(Array.isArray(fromPath) ? fromPath : []),
    ...(Array.isArray(fromOperation) ? fromOperation : []),
  ]) {
    const parameter = refs.follow(raw);
    if (isObject(parameter)) merged.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
  }
  return [...merged.values()];
}

/** The schema of a parameter: Swagger 2.0 describes it inline, OpenAPI 3 in `schema` or in `content`. */
function schemaOfParameter(context: MappingContext, raw: Json): unknown {
  if (context.dialect === '2.0') return raw;
  if (raw.schema !== undefined) return context.refs.follow(raw.schema);
  if (isObject(raw.content)) {
    const [first] = Object.values(raw.content);
    return isObject(first) ? context.refs.follow(first.schema) : undefined;
  }
  return undefined;
}

/**
 * A path, query or header parameter as a descriptor's parameter (URL, QUERY, HEADER), with its type, `required`,
 * description as summary and default. A Swagger 2.0 body parameter is returned as it is (it is the request body);
 * cookie and form parameters, and the headers OpenAPI ignores, are left out with a warning.
 */
export function toParameter(context: MappingContext, raw: Json, where: string): Parameter | { body: Json } | undefined {
  const name = String(raw.name);
  const location = String(raw.in);
  if (location === 'body') return { body: raw };
  if (location === 'cookie') {
    context.warn(`${where}: the cookie parameter ${name} left out (the project format has no cookie parameters)`);
    return undefined;
  }
  if (location === 'formData') {
    context.warn(`${where}: the form parameter ${name} left out (only JSON bodies are imported)`);
    return undefined;
  }
  if (location === 'header' && IGNORED_HEADERS.has(name.toLowerCase())) {
    context.warn(`${where}: the header parameter ${name} left out (OpenAPI ignores ${name} as a parameter)`);
    return undefined;
  }
  const kind = KINDS[location];
  if (!kind) return undefined;
  const schema = schemaOfParameter(context, raw);
  let type = typeOf(schema);
  if (context.dialect === '2.0' && raw.type === 'file') {
    context.warn(`${where}: the parameter ${name} is a file, imported as a string`);
    type = 'string';
  }
  const parameter: Parameter = {
    name,
    kind,
    required: location === 'path' ? true : raw.required === true,
    type,
    summary: typeof raw.description === 'string' ? raw.description : '',
  };
  const fallback = isObject(schema) ? schema.default : undefined;
  if (Array.isArray(fallback)) {
    context.warn(
      `${where}: the default of the parameter ${name} is a list, which the project format cannot hold; left out`,
    );
  } else if (fallback !== undefined) parameter.default = fallback;
  context.counts.parameters += 1;
  return parameter;
}

/** A parameter's value for a generated test: its example, default or first enum value, else one of its type. */
export function sampleParameter(context: MappingContext, raw: Json | undefined): string {
  if (!raw) return '1';
  const schema = schemaOfParameter(context, raw);
  const value =
    raw.example ??
    (isObject(schema)
      ? ((Array.isArray(schema.examples) ? schema.examples[0] : undefined) ??
        schema.example ??
        schema.default ??
        (Array.isArray(schema.enum) ? schema.enum[0] : undefined))
      : undefined);
  if (value !== undefined) return toHeaderText(value);
  const type = typeOf(schema);
  return type === 'integer' || type === 'number' ? '1' : type === 'boolean' ? 'true' : 'string';
}
