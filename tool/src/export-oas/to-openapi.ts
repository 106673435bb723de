import { readFile } from 'node:fs/promises';
import { basename, join, resolve } from 'node:path';
import { parse } from 'yaml';
import { isJsonMediaType, readErrorCode, readErrorMessage, RestbusError, type JsonObject } from '@restbus/infra';
import {
  isEventStreamResponse,
  listMethods,
  type MethodDescriptor,
  type Project,
  type RequestParameter,
} from '@restbus/project-format';
import { showPath } from '../project/show-path';
import { embedSchema, type SchemaComponents } from './embed-schema';
import { isTextType, mediaTypeOf } from './media-type';

/** A project file as messages name it (showPath from the project folder). */
type Show = (file: string) => string;

/** Headers OpenAPI describes elsewhere (content negotiation, security) and tells tools to ignore as parameters. */
const IGNORED_HEADERS = new Set(['accept', 'content-type', 'authorization']);

/** `serviceUrlPrefix + uriTemplate` without a doubled or missing slash. */
export function toOpenApiPath(prefix: string, uriTemplate: string): string {
  return `${prefix.replace(/\/+$/, '')}${uriTemplate}` || '/';
}

/** A mock or schema file's content as an example: JSON parsed, text as text, anything else left out. */
async function readExample(file: string, mediaType: string, show: Show): Promise<unknown> {
  if (isJsonMediaType(mediaType)) return readParsed(file, JSON.parse, show);
  if (isTextType(mediaType)) return readFile(file, 'utf8').catch(() => undefined);
  return undefined;
}

async function readParsed(file: string, parser: (text: string) => unknown, show: Show): Promise<unknown> {
  try {
    return parser(await readFile(file, 'utf8'));
  } catch (err) {
    // A documentation-only file that is not there was a warning already: the document goes without it.
    if (readErrorCode(err) === 'ENOENT') return undefined;
    throw new RestbusError('PROJECT_INVALID', `${show(file)}: ${readErrorMessage(err).split('\n')[0]}`);
  }
}

/** A schema file as a schema of the document (its definitions moved to `components`: see embedSchema). */
async function readSchema(file: string, components: SchemaComponents, show: Show): Promise<JsonObject | undefined> {
  const schema = await readParsed(file, parse, show);
  if (schema === undefined) return undefined;
  if (!schema || typeof schema !== 'object')
    throw new RestbusError('PROJECT_INVALID', `${show(file)}: is not a schema`);
  // Its own keys as a spread reads them: an array's are its indexes.
  const keyed: JsonObject = Object.fromEntries(Object.entries(schema));
  // The dialect of an OpenAPI 3.1 schema is the document's; an older draft's "$schema" would contradict it.
  const { $schema: _dialect, ...rest } = keyed;
  return embedSchema(rest, components, basename(file));
}

function toParameters(method: MethodDescriptor, uriTemplate: string): JsonObject[] {
  const request = method.request ?? {};
  const declared = request.parameters ?? [];
  const inPath = [...uriTemplate.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const schemaOf = (parameter: RequestParameter): JsonObject => ({
    type: parameter.type,
    ...(parameter.default === undefined || parameter.default === null ? {} : { default: parameter.default }),
  });
  const parameters: JsonObject[] = [];
  for (const name of inPath) {
    const parameter = declared.find((item) => item.kind === 'URL' && item.name === name);
    parameters.push({
      name,
      in: 'path',
      required: true,
      ...(parameter?.summary ? { description: parameter.summary } : {}),
      schema: parameter ? schemaOf(parameter) : { type: 'string' },
    });
  }
  // A URL parameter missing from the uriTemplate cannot be a path parameter in OpenAPI; BODY ones are the body.
  for (const parameter of declared.filter((item) => item.kind === 'QUERY')) {
    parameters.push({
      name: parameter.name,
      in: 'query',
      required: parameter.required,
      description: parameter.summary,
      schema: schemaOf(parameter),
    });
  }
  // HEADER parameters as they are declared; a request header of the same name (its example value) adds nothing.
  const headerParameters = declared.filter(
    (item) => item.kind === 'HEADER' && !IGNORED_HEADERS.has(item.name.toLowerCase()),
  );
  for (const parameter of headerParameters) {
    parameters.push({
      name: parameter.name,
      in: 'header',
      required: parameter.required,
      ...(parameter.summary ? { description: parameter.summary } : {}),
      schema: schemaOf(parameter),
    });
  }
  const declaredHeaders = new Set(headerParameters.map((parameter) => parameter.name.toLowerCase()));
  for (const header of (request.headers ?? []).filter((item) => !IGNORED_HEADERS.has(item.field.toLowerCase()))) {
    if (declaredHeaders.has(header.field.toLowerCase())) continue;
    declaredHeaders.add(header.field.toLowerCase());
    parameters.push({ name: header.field, in: 'header', schema: { type: 'string' }, example: header.content });
  }
  for (const cookie of request.cookies ?? []) {
    parameters.push({ name: cookie.field, in: 'cookie', schema: { type: 'string' }, example: cookie.content });
  }
  return parameters;
}

/** The request body: the request `mockBody` as its example, the request `validationSchema` as its schema. */
async function toRequestBody(
  method: MethodDescriptor,
  serviceDir: string,
  components: SchemaComponents,
  show: Show,
): Promise<JsonObject | undefined> {
  const request = method.request ?? {};
  const mockBody = typeof request.mockBody === 'string' ? request.mockBody : undefined;
  const schemaFile = request.validationSchema;
  if (!mockBody && !schemaFile) return undefined;
  const mediaType = mediaTypeOf(request.headers, mockBody ?? schemaFile);
  const media: JsonObject = {};
  const schema = schemaFile ? await readSchema(resolve(serviceDir, schemaFile), components, show) : undefined;
  if (schema) media.schema = schema;
  const example = mockBody ? await readExample(resolve(serviceDir, mockBody), mediaType, show) : undefined;
  if (example !== undefined) media.example = example;
  return {
    ...(typeof request.description === 'string' ? { description: request.description } : {}),
    content: { [mediaType]: media },
  };
}

/** A response of the document as written here: the media types' objects are this module's own. */
interface ResponseObject {
  description: string;
  headers?: JsonObject;
  content?: Record<string, JsonObject>;
}

async function toResponses(
  method: MethodDescriptor,
  serviceDir: string,
  components: SchemaComponents,
  show: Show,
): Promise<JsonObject> {
  const responses: Record<string, ResponseObject> = {};
  for (const response of method.responses) {
    const status = String(response.statusCode);
    const key = /^[1-5](\d\d|XX)$/.test(status) ? status : 'default';
    const text = [response.reason, response.description ?? ''].filter(Boolean).join('\n\n');
    const entry = (responses[key] ??= { description: text });
    if (entry.description !== text) entry.description = `${String(entry.description)}\n\n${text}`;
    const headers = (response.headers ?? []).filter((header) => header.field.toLowerCase() !== 'content-type');
    if (headers.length) {
      entry.headers = {
        ...(entry.headers ?? {}),
        ...Object.fromEntries(
          headers.map((header) => [header.field, { schema: { type: 'string' }, example: header.content }]),
        ),
      };
    }
    const mockBody = typeof response.mockBody === 'string' ? response.mockBody : undefined;
    const schemaFile = response.validationSchema;
    const declaresType = (response.headers ?? []).some((header) => header.field.toLowerCase() === 'content-type');
    if (!mockBody && !schemaFile && !declaresType) continue;
    const mediaType = mediaTypeOf(response.headers, mockBody ?? schemaFile);
    const content = entry.content ?? {};
    const media = (content[mediaType] ??= {});
    if (isEventStreamResponse(response)) {
      // OAS 3.2's sequential media type: the schema file describes one event, the mock file lists the events.
      const items = mockBody ? await readParsed(resolve(serviceDir, mockBody), JSON.parse, show) : undefined;
      const schema = schemaFile ? await readSchema(resolve(serviceDir, schemaFile), components, show) : undefined;
      if (media.itemSchema === undefined && (schema || items !== undefined)) {
        const examples = items === undefined ? [] : Array.isArray(items) ? items : [items];
        media.itemSchema = { ...(schema ?? {}), ...(examples.length && { examples }) };
      }
      entry.content = content;
      continue;
    }
    // Two responses with one status (an OK and a named variant): the first one's example is kept.
    if (mockBody && media.example === undefined) {
      const example = await readExample(resolve(serviceDir, mockBody), mediaType, show);
      if (example !== undefined) media.example = example;
    }
    if (schemaFile && media.schema === undefined) {
      const schema = await readSchema(resolve(serviceDir, schemaFile), components, show);
      if (schema) media.schema = schema;
    }
    entry.content = content;
  }
  return Object.keys(responses).length ? responses : { default: { description: 'No response is described' } };
}

/**
 * An OpenAPI 3.1 document of a loaded project: one path per service (`serviceUrlPrefix + uriTemplate`), one operation
 * per method with its parameters (URL, QUERY, HEADER and request headers), request and response examples from the
 * mock files, request and response schemas from the `validationSchema` files, and responses by status code with
 * their reason and headers. The service name is the operations' tag.
 */
export async function toOpenApi(project: Project): Promise<JsonObject & { paths: Record<string, JsonObject> }> {
  const { config } = project;
  const paths: Record<string, JsonObject> = {};
  const tags: JsonObject[] = [];
  const components: SchemaComponents = {};
  const show: Show = (file) => showPath(project.root, file);
  for (const service of project.services) {
    const { descriptor } = service;
    const serviceDir = join(project.environment.restapiRoot, config.servicesRoot, service.path);
    // Tag names are unique in OpenAPI; two services of one name share a tag.
    if (!tags.some((tag) => tag.name === descriptor.name)) {
      tags.push({ name: descriptor.name, description: descriptor.description });
    }
    const item = (paths[toOpenApiPath(config.serviceUrlPrefix, descriptor.uriTemplate)] ??= {});
    for (const [name, method] of listMethods(descriptor)) {
      const parameters = toParameters(method, descriptor.uriTemplate);
      const requestBody = await toRequestBody(method, serviceDir, components, show);
      item[name.toLowerCase()] = {
        tags: [descriptor.name],
        summary: method.summary,
        ...(typeof method.notes === 'string' ? { description: method.notes } : {}),
        ...(parameters.length ? { parameters } : {}),
        ...(requestBody ? { requestBody } : {}),
        responses: await toResponses(method, serviceDir, components, show),
      };
    }
  }
  let server: string | undefined;
  try {
    server = new URL(config.baseUrl).origin;
  } catch {
    server = undefined;
  }
  return {
    openapi: '3.1.0',
    info: {
      title: config.projectName,
      version: config.apiVersion,
      // OpenAPI's license object needs an SPDX identifier or a URL, which a free-text licence is not: say it in prose.
      description: `Licence: ${config.licence}`,
      contact: { name: config.author },
    },
    ...(server ? { servers: [{ url: server }] } : {}),
    tags,
    paths,
    ...(Object.keys(components).length ? { components: { schemas: components } } : {}),
  };
}
