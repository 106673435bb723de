import { HTTP_METHODS, isJsonObject, toTopic, type HttpMethod, type JsonObject } from '@restbus/infra';
import type {
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
import { findEventStream } from './find-event-stream';
import { nameOperation } from './name-operation';

/** A lenient document may have anything where an object belongs: it reads as empty (the linter says so). */
const asObject = (value: unknown): JsonObject => (isJsonObject(value) ? value : {});
const asArray = (value: unknown): unknown[] => (Array.isArray(value) ? value : []);
const asString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;
const toSchema = (value: unknown): JsonSchema | undefined =>
  isJsonObject(value) || typeof value === 'boolean' ? value : undefined;

type ExternalValues = ReadonlyMap<object, unknown>;
const NO_EXTERNAL_VALUES: ExternalValues = new Map();

const LOCATIONS: readonly ParameterLocation[] = ['path', 'query', 'header', 'cookie'];
const isLocation = (value: unknown): value is ParameterLocation => LOCATIONS.some((location) => location === value);
const JSON_TYPE = 'application/json';
const FORM_TYPES = ['application/x-www-form-urlencoded', 'multipart/form-data'];
// Swagger 2 parameters and headers carry their schema inline, among these members that are not schema.
const NOT_SCHEMA = new Set([
  'name',
  'in',
  'required',
  'description',
  'allowEmptyValue',
  'collectionFormat',
  'schema',
  'example',
  'examples',
  'style',
  'explode',
  'deprecated',
  'x-example',
]);

export interface BuildOptions {
  file: string;
  dialect: Dialect;
  /** The first tokens of every subject (`--topicPrefix`). */
  topicPrefix: string;
  /**
   * The values of Example objects given only by `externalValue`, read by the loader (see readExternalExamples):
   * an example with neither is left out.
   */
  externalValues?: ExternalValues;
}

function inlineSchema(object: JsonObject): JsonSchema {
  return Object.fromEntries(Object.entries(object).filter(([key]) => !NOT_SCHEMA.has(key)));
}

/** 3.x `example` / `examples` (Example objects) of a media type or parameter. */
function readExamples(holder: JsonObject, external: ExternalValues): ApiExample[] {
  const examples: ApiExample[] = [];
  if (holder.example !== undefined) examples.push({ name: 'default', value: holder.example });
  for (const [name, raw] of Object.entries(asObject(holder.examples))) {
    if (!isJsonObject(raw)) continue;
    const value = raw.value !== undefined ? raw.value : external.get(raw);
    if (value === undefined) continue;
    examples.push({ name, value, ...(typeof raw.summary === 'string' && { summary: raw.summary }) });
  }
  return examples;
}

/** A 3.x media type's `encoding`, the members it can be read by; undefined when it has none. */
function readEncoding(raw: unknown): Record<string, ApiEncoding> | undefined {
  const entries = Object.entries(asObject(raw)).map(([name, value]): [string, ApiEncoding] => {
    const encoding = asObject(value);
    return [
      name,
      {
        ...(typeof encoding.contentType === 'string' && { contentType: encoding.contentType }),
        ...(typeof encoding.style === 'string' && { style: encoding.style }),
        ...(typeof encoding.explode === 'boolean' && { explode: encoding.explode }),
        ...(encoding.allowReserved === true && { allowReserved: true }),
      },
    ];
  });
  return entries.length === 0 ? undefined : Object.fromEntries(entries);
}

function readMedia(raw: unknown, external: ExternalValues): ApiMedia {
  const media = asObject(raw);
  const schema = toSchema(media.schema);
  const itemSchema = toSchema(media.itemSchema);
  const encoding = readEncoding(media.encoding);
  return {
    ...(schema !== undefined && { schema }),
    ...(itemSchema !== undefined && { itemSchema }),
    ...(encoding !== undefined && { encoding }),
    examples: readExamples(media, external),
  };
}

/** A schema's own `example` (3.0) and `examples` (JSON Schema's list), as examples of one item. */
function readSchemaExamples(schema: JsonSchema | undefined): ApiExample[] {
  if (!isJsonObject(schema)) return [];
  const examples: ApiExample[] = [];
  if (schema.example !== undefined) examples.push({ name: 'default', value: schema.example });
  asArray(schema.examples).forEach((value, index) => examples.push({ name: `example-${index + 1}`, value }));
  return examples;
}

/**
 * OAS 3.2 describes a `text/event-stream` item as the whole event (`{data, event, id, retry}`, `data` a string whose
 * `contentSchema` is the JSON it carries); the gateway sends and checks the data, so the model gives the data's
 * schema and examples. An item schema of any other shape is the data's already (3.0 and 3.1 documents).
 */
function readEventData(itemSchema: JsonSchema | undefined): { schema?: JsonSchema; unwrap(value: unknown): unknown } {
  const data = isJsonObject(itemSchema) && isJsonObject(itemSchema.properties) ? itemSchema.properties.data : undefined;
  if (!isJsonObject(data)) return { schema: itemSchema, unwrap: (value) => value };
  const carriesJson = data.contentSchema !== undefined || /json/i.test(String(data.contentMediaType ?? ''));
  return {
    schema: toSchema(data.contentSchema) ?? data,
    unwrap(value) {
      if (!isJsonObject(value) || !('data' in value)) return value;
      if (!carriesJson || typeof value.data !== 'string') return value.data;
      try {
        return JSON.parse(value.data);
      } catch {
        return value.data;
      }
    },
  };
}

/**
 * The stream a GET declares with `x-restbus-stream`, read from its first 2xx response in `text/event-stream`;
 * undefined when any part is missing (checkRoutes says why).
 */
function readStream(method: HttpMethod, declared: unknown, responses: ApiResponse[]): ApiStream | undefined {
  if (method !== 'get' || !isJsonObject(declared) || typeof declared.subject !== 'string') return undefined;
  const media = findEventStream(responses);
  if (!media) return undefined;
  return {
    subject: declared.subject,
    ...(typeof declared.stream === 'string' && { stream: declared.stream }),
    ...describeEvents(media),
  };
}

/**
 * The events of a `text/event-stream` media type: the schema of one event's data and its examples, in document
 * order (the itemSchema's `example` and `examples`, else the media type's), OAS 3.2's whole-event items unwrapped.
 */
export function describeEvents(media: ApiMedia): Pick<ApiStream, 'itemSchema' | 'examples'> {
  const data = readEventData(media.itemSchema ?? media.schema);
  const itemExamples = readSchemaExamples(media.itemSchema);
  const examples = itemExamples.length > 0 ? itemExamples : media.examples;
  return {
    ...(data.schema !== undefined && { itemSchema: data.schema }),
    examples: examples.map((example) => ({ ...example, value: data.unwrap(example.value) })),
  };
}

function readContent(raw: unknown, external: ExternalValues): Record<string, ApiMedia> {
  return Object.fromEntries(Object.entries(asObject(raw)).map(([type, media]) => [type, readMedia(media, external)]));
}

/** Swagger 2's `collectionFormat` as the 3.x style it stands for. */
function toStyle(collectionFormat: unknown, location: string): Pick<ApiParameter, 'style' | 'explode'> {
  switch (collectionFormat) {
    case 'multi':
      return { style: 'form', explode: true };
    case 'ssv':
      return { style: 'spaceDelimited', explode: false };
    case 'pipes':
      return { style: 'pipeDelimited', explode: false };
    case 'tsv':
      return { style: 'tabDelimited', explode: false };
    default:
      return { style: location === 'query' ? 'form' : 'simple', explode: false };
  }
}

function readParameter(raw: JsonObject, dialect: Dialect, external: ExternalValues): ApiParameter | undefined {
  const name = asString(raw.name);
  const location = raw.in;
  if (name === undefined || !isLocation(location)) return undefined;
  const where = location;
  const parameter: ApiParameter = {
    name,
    in: where,
    required: where === 'path' || raw.required === true,
    examples: readExamples(raw, external),
  };
  if (dialect === '2.0') {
    parameter.schema = inlineSchema(raw);
    Object.assign(parameter, toStyle(raw.collectionFormat, where));
    // Swagger 2 refuses an empty query value (`?name=`) unless the parameter allows it, as it does a formData field.
    if (where === 'query') parameter.allowEmptyValue = raw.allowEmptyValue === true;
  } else {
    const schema = toSchema(raw.schema);
    if (schema !== undefined) parameter.schema = schema;
    const [mediaType, media] = Object.entries(asObject(raw.content))[0] ?? [];
    if (mediaType !== undefined) {
      const contentSchema = toSchema(asObject(media).schema);
      parameter.content = { mediaType, ...(contentSchema !== undefined && { schema: contentSchema }) };
    }
    if (typeof raw.style === 'string') parameter.style = raw.style;
    if (typeof raw.explode === 'boolean') parameter.explode = raw.explode;
    if (raw.allowReserved === true) parameter.allowReserved = true;
    if (raw.allowEmptyValue === true) parameter.allowEmptyValue = true;
  }
  if (raw.deprecated === true) parameter.deprecated = true;
  if (typeof raw.description === 'string') parameter.description = raw.description;
  return parameter;
}

/** Operation parameters override path item parameters of the same name and location. */
function mergeParameters(fromPath: unknown, fromOperation: unknown): JsonObject[] {
  const merged = new Map<string, JsonObject>();
  for (const parameter of [...asArray(fromPath), ...asArray(fromOperation)]) {
    if (isJsonObject(parameter)) merged.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
  }
  return [...merged.values()];
}

/** Swagger 2: the `in: body` parameter, or the `formData` ones as one object, under each type consumed. */
function readSwaggerBody(parameters: JsonObject[], consumes: string[]): ApiRequestBody | undefined {
  const body = parameters.find((parameter) => parameter.in === 'body');
  if (body) {
    const schema = toSchema(body.schema);
    const media: ApiMedia = {
      ...(schema !== undefined && { schema }),
      examples: readSwaggerExamples(body),
    };
    const types = consumes.length > 0 ? consumes : [JSON_TYPE];
    return {
      required: body.required === true,
      ...(typeof body.description === 'string' && { description: body.description }),
      content: Object.fromEntries(types.map((type) => [type, media])),
    };
  }
  const fields = parameters.filter((parameter) => parameter.in === 'formData' && typeof parameter.name === 'string');
  if (fields.length === 0) return undefined;
  const required = fields.filter((field) => field.required === true).map((field) => String(field.name));
  const schema: JsonSchema = {
    type: 'object',
    properties: Object.fromEntries(fields.map((field) => [String(field.name), inlineSchema(field)])),
    ...(required.length > 0 && { required }),
  };
  // A field's collectionFormat (csv when not written) and allowEmptyValue, as a 3.x encoding says them.
  const encoding: Record<string, ApiEncoding> = Object.fromEntries(
    fields.map((field) => [
      String(field.name),
      {
        ...(field.type === 'array' && toStyle(field.collectionFormat, 'query')),
        allowEmptyValue: field.allowEmptyValue === true,
      },
    ]),
  );
  const types = consumes.filter((type) => FORM_TYPES.includes(type.split(';')[0].trim().toLowerCase()));
  return {
    required: required.length > 0,
    content: Object.fromEntries(
      (types.length > 0 ? types : [FORM_TYPES[0]]).map((type) => [type, { schema, encoding, examples: [] }]),
    ),
  };
}

/**
 * Swagger 2 headers have `example`; tools write `x-example` (Swagger 2 parameters' vendor member) on headers and
 * body parameters too.
 */
function readSwaggerExamples(header: JsonObject): ApiExample[] {
  const examples: ApiExample[] = [];
  if (header.example !== undefined) examples.push({ name: 'default', value: header.example });
  if (header['x-example'] !== undefined) {
    examples.push({ name: examples.length === 0 ? 'default' : 'x-example', value: header['x-example'] });
  }
  return examples;
}

// Records keyed by a document's names are built with Object.fromEntries: a name like `__proto__` stays a member.
function readHeaders(raw: unknown, dialect: Dialect, external: ExternalValues): Record<string, ApiHeader> {
  return Object.fromEntries(
    Object.entries(asObject(raw)).flatMap(([name, value]): Array<[string, ApiHeader]> => {
      if (!isJsonObject(value)) return [];
      const schema =
        dialect === '2.0'
          ? inlineSchema(value)
          : (toSchema(value.schema) ?? toSchema(asObject(Object.values(asObject(value.content))[0]).schema));
      const header: ApiHeader = {
        required: value.required === true,
        ...(schema !== undefined && { schema }),
        ...(typeof value.description === 'string' && { description: value.description }),
        examples: dialect === '2.0' ? readSwaggerExamples(value) : readExamples(value, external),
      };
      return [[name, header]];
    }),
  );
}

function readResponse(
  status: string,
  raw: JsonObject,
  dialect: Dialect,
  produces: string[],
  external: ExternalValues,
): ApiResponse {
  const response: ApiResponse = {
    status: /^[1-5]xx$/i.test(status) ? status.toUpperCase() : status,
    key: status,
    content: {},
    headers: readHeaders(raw.headers, dialect, external),
  };
  if (typeof raw.description === 'string') response.description = raw.description;
  if (dialect !== '2.0') {
    response.content = readContent(raw.content, external);
    return response;
  }
  const schema = toSchema(raw.schema);
  const examples = asObject(raw.examples);
  // A response with neither schema nor examples has no body, whatever the operation produces.
  if (schema === undefined && Object.keys(examples).length === 0) return response;
  const types = [...new Set([...produces, ...Object.keys(examples)])];
  response.content = Object.fromEntries(
    (types.length > 0 ? types : [JSON_TYPE]).map((type): [string, ApiMedia] => [
      type,
      {
        ...(schema !== undefined && { schema }),
        examples:
          Object.hasOwn(examples, type) && examples[type] !== undefined
            ? [{ name: 'default', value: examples[type] }]
            : [],
      },
    ]),
  );
  return response;
}

function readSecuritySchemes(document: JsonObject, file: string): Record<string, ApiSecurityScheme> {
  const inComponents = isJsonObject(asObject(document.components).securitySchemes);
  const declared = inComponents
    ? asObject(asObject(document.components).securitySchemes)
    : asObject(document.securityDefinitions);
  const at: string[] = inComponents ? ['components', 'securitySchemes'] : ['securityDefinitions'];
  return Object.fromEntries(
    Object.entries(declared).flatMap(([name, raw]): Array<[string, ApiSecurityScheme]> => {
      if (!isJsonObject(raw) || typeof raw.type !== 'string') return [];
      const scheme: ApiSecurityScheme = {
        type: raw.type,
        ...(typeof raw.name === 'string' && { name: raw.name }),
        ...(typeof raw.in === 'string' && { in: raw.in }),
        ...(typeof raw.scheme === 'string' && { scheme: raw.scheme.toLowerCase() }),
        ...(typeof raw.bearerFormat === 'string' && { bearerFormat: raw.bearerFormat }),
        ...(typeof raw.openIdConnectUrl === 'string' && { openIdConnectUrl: raw.openIdConnectUrl }),
        extensions: Object.fromEntries(Object.entries(raw).filter(([key]) => key.startsWith('x-'))),
        source: { file, pointer: [...at, name] },
      };
      return [[name, scheme]];
    }),
  );
}

function readSecurity(raw: unknown, schemes: Record<string, ApiSecurityScheme>): ApiSecurityUse[][] {
  return asArray(raw)
    .filter(isJsonObject)
    .map((requirement) =>
      Object.entries(requirement).map(([name, scopes]) => ({
        name,
        ...(Object.hasOwn(schemes, name) && { scheme: schemes[name] }),
        scopes: strings(scopes) ?? [],
      })),
    );
}

function readOperation(
  document: JsonObject,
  path: string,
  method: HttpMethod,
  item: JsonObject,
  options: BuildOptions,
  schemes: Record<string, ApiSecurityScheme>,
): Omit<ApiOperation, 'name'> {
  const operation = asObject(item[method]);
  const { dialect } = options;
  const external = options.externalValues ?? NO_EXTERNAL_VALUES;
  const merged = mergeParameters(item.parameters, operation.parameters);
  const parameters: Record<ParameterLocation, ApiParameter[]> = { path: [], query: [], header: [], cookie: [] };
  for (const raw of merged) {
    const parameter = readParameter(raw, dialect, external);
    if (parameter) parameters[parameter.in].push(parameter);
  }
  const consumes = strings(operation.consumes ?? document.consumes) ?? [];
  const produces = strings(operation.produces ?? document.produces) ?? [];
  let requestBody: ApiRequestBody | undefined;
  if (dialect === '2.0') requestBody = readSwaggerBody(merged, consumes);
  else if (isJsonObject(operation.requestBody)) {
    const body = operation.requestBody;
    requestBody = {
      required: body.required === true,
      ...(typeof body.description === 'string' && { description: body.description }),
      content: readContent(body.content, external),
    };
  }
  const responses = Object.entries(asObject(operation.responses))
    .filter((entry): entry is [string, JsonObject] => isJsonObject(entry[1]))
    .map(([status, raw]) => readResponse(status, raw, dialect, produces, external));
  const contentPath = asObject(operation['x-static']).contentPath;
  const override = operation['x-restbus-subject'];
  const extensions = Object.fromEntries(Object.entries(operation).filter(([key]) => key.startsWith('x-')));
  const stream = readStream(method, operation['x-restbus-stream'], responses);
  return {
    ...(typeof operation.operationId === 'string' && { operationId: operation.operationId }),
    method,
    path,
    subject: typeof override === 'string' && override !== '' ? override : toTopic(options.topicPrefix, method, path),
    ...(typeof operation.summary === 'string' && { summary: operation.summary }),
    ...(typeof operation.description === 'string' && { description: operation.description }),
    tags: strings(operation.tags) ?? [],
    deprecated: operation.deprecated === true,
    parameters,
    ...(requestBody && { requestBody }),
    responses,
    ...(stream && { stream }),
    security: readSecurity(Array.isArray(operation.security) ? operation.security : document.security, schemes),
    ...(typeof contentPath === 'string' && contentPath !== '' && { static: { contentPath } }),
    extensions,
    source: { file: options.file, pointer: ['paths', path, method] },
  };
}

/**
 * The model of a dereferenced document: every operation under `paths`, in document order. It reads leniently, as
 * the gateway serves: what is not the shape it should be reads as absent (the linter reports it). Whether a path
 * can be routed or a subject carried is the loader's to say; this only describes.
 */
export function buildApiModel(document: JsonObject, options: BuildOptions): ApiModel {
  const schemes = readSecuritySchemes(document, options.file);
  const read: Array<Omit<ApiOperation, 'name'>> = [];
  for (const [path, item] of Object.entries(asObject(document.paths))) {
    if (!isJsonObject(item)) continue;
    for (const method of HTTP_METHODS) {
      if (isJsonObject(item[method])) read.push(readOperation(document, path, method, item, options, schemes));
    }
  }
  const taken = new Set(read.flatMap(({ operationId }) => (operationId === undefined ? [] : [operationId])));
  const operations = read.map((operation) => {
    if (operation.operationId !== undefined) return { name: operation.operationId, ...operation };
    const name = nameOperation(operation.method, operation.path, taken);
    taken.add(name);
    return { name, ...operation };
  });
  const info = asObject(document.info);
  const schemas = asObject(
    document.openapi === undefined ? document.definitions : asObject(document.components).schemas,
  );
  return {
    file: options.file,
    dialect: options.dialect,
    title: asString(info.title) ?? '',
    version: typeof info.version === 'string' || typeof info.version === 'number' ? String(info.version) : '',
    operations,
    schemas: Object.fromEntries(
      Object.entries(schemas).flatMap(([name, schema]) => {
        const value = toSchema(schema);
        return value === undefined ? [] : [[name, value]];
      }),
    ),
    extensions: Object.fromEntries(Object.entries(document).filter(([key]) => key.startsWith('x-'))),
    schemaRoot: document,
  };
}
