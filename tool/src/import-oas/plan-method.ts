import { STATUS_CODES } from 'node:http';
import type { JsonObject } from '@restbus/infra';
import type { ApiOperation, ApiParameter, ApiResponse, ParameterLocation } from '@restbus/openapi';
import type { ServiceType } from '../add/service-spec';
import { capitalise } from '../add/to-identifier';
import { contentBody, mockOf, splitEventStream, type Body } from './map-bodies';
import { sampleParameter, toParameter, type Parameter } from './map-parameters';
import { isHeaderText, schemaOf, toHeaderText, type MappingContext } from './mapping-context';
import { sampleFromSchema } from './sample-from-schema';

export type Method = 'GET' | 'PUT' | 'POST' | 'DELETE';

const TEST_TEMPLATES: Record<Method, string> = {
  GET: 'testGetMethod.mustache',
  PUT: 'testPutMethod.mustache',
  POST: 'testPostMethod.mustache',
  DELETE: 'testDelMethod.mustache',
};

type Field = { field: string; content: string };

export interface MethodInput {
  method: Method;
  path: string;
  /** The operation's typed model: what the plan reads of it (parameters, bodies, responses, headers). */
  model: ApiOperation;
  style: ServiceType;
  /** Writes a JSON file beside the descriptor and answers its name (made unique in the folder). */
  addJsonFile(name: string, value: unknown): string;
}

/** The statuses of an operation's responses, and the one the mock server answers with (OK): the lowest 2xx. */
function findOkStatus(statuses: readonly string[]): string | undefined {
  return (
    statuses.filter((status) => /^2\d\d$/.test(status)).sort()[0] ??
    statuses.find((status) => /^2xx$/i.test(status)) ??
    statuses[0]
  );
}

/** The request body of an operation: the model's (a Swagger 2.0 body or form parameters, an OpenAPI 3 requestBody). */
function planRequestBody(
  context: MappingContext,
  input: MethodInput,
  where: string,
): { body?: Body; description?: string } {
  const { requestBody } = input.model;
  if (!requestBody) return {};
  return {
    body: contentBody(context, requestBody.content, `${where}: the request body`),
    description: requestBody.description,
  };
}

/**
 * A response's headers but Content-Type, each with its first example (3.x `example`/`examples`, Swagger 2
 * `example`/`x-example`) or a sample of its schema as content.
 */
function planResponseHeaders(context: MappingContext, response: ApiResponse, where: string): Field[] {
  const headers: Field[] = [];
  for (const [field, header] of Object.entries(response.headers)) {
    if (field.toLowerCase() === 'content-type') continue;
    const value =
      header.examples[0]?.value ??
      (header.schema !== undefined ? sampleFromSchema(schemaOf(context, header.schema)) : 'string');
    const content = toHeaderText(value);
    if (!isHeaderText(content)) {
      context.warn(`${where}: the header ${field} left out (its example is not a valid header value)`);
      continue;
    }
    headers.push({ field, content });
  }
  return headers;
}

/**
 * The responses of an operation, by status as listed: the lowest 2xx is named OK (the mock server answers with it),
 * the others by their status; a JSON body gets a mock file and a schema file.
 */
function planResponses(
  context: MappingContext,
  input: MethodInput,
  prefix: string,
  where: string,
): { responses: JsonObject[]; ok?: { statusCode: unknown; mediaType?: string; stream: boolean } } {
  const okStatus = findOkStatus(input.model.responses.map(({ key }) => key));
  const responses: JsonObject[] = [];
  let ok: { statusCode: unknown; mediaType?: string; stream: boolean } | undefined;
  for (const response of input.model.responses) {
    const status = response.key;
    const isOk = status === okStatus;
    const statusCode = /^\d{3}$/.test(status) ? Number(status) : status === 'default' ? status : status.toUpperCase();
    const description = response.description ?? '';
    const planned: JsonObject = {
      name: isOk ? 'OK' : status,
      statusCode,
      reason: description || STATUS_CODES[status] || status,
    };
    const responseWhere = `${where}: response ${status}`;
    // A GET's event stream (Server-Sent Events) is its answer, whatever else it offers: its events become the mock file.
    const split = input.method === 'GET' ? splitEventStream(context, response.content) : undefined;
    const stream = split?.events;
    for (const type of stream ? Object.keys(split?.rest ?? {}) : []) {
      context.warn(`${responseWhere} as ${type} left out (the event stream is imported)`);
    }
    const body = stream ? undefined : contentBody(context, split?.rest ?? response.content, responseWhere);
    const mediaType = stream?.mediaType ?? body?.mediaType;
    const headers = [
      ...(mediaType ? [{ field: 'Content-Type', content: mediaType }] : []),
      ...planResponseHeaders(context, response, responseWhere),
    ];
    if (headers.length) planned.headers = headers;
    if (body) {
      const tag = isOk ? '' : `-${String(statusCode)}`;
      const mock = mockOf(body);
      if (mock !== undefined) {
        planned.mockBody = input.addJsonFile(`${prefix}${tag}-responseBody.json`, mock);
        context.counts.mockFiles += 1;
      }
      if (body.schema !== undefined) {
        planned.validationSchema = input.addJsonFile(`${prefix}${tag}-responseSchema.json`, body.schema);
        context.counts.schemaFiles += 1;
      }
    }
    if (stream) {
      const tag = isOk ? '' : `-${String(statusCode)}`;
      if (stream.events.length) {
        planned.mockBody = input.addJsonFile(`${prefix}${tag}-events.json`, stream.events);
        context.counts.mockFiles += 1;
      }
      if (stream.schema !== undefined) {
        planned.validationSchema = input.addJsonFile(`${prefix}${tag}-eventSchema.json`, stream.schema);
        context.counts.schemaFiles += 1;
      }
    }
    if (isOk) ok = { statusCode, mediaType, stream: stream !== undefined };
    responses.push(planned);
    context.counts.responses += 1;
  }
  return { responses, ok };
}

/** A test case of the OK response, with what it needs filled in: path parameters, required query and headers. */
function planTestCase(
  input: MethodInput,
  planned: {
    summary: string;
    parameters: Parameter[];
    declared: ApiParameter[];
    headers: Field[];
    mockBody?: unknown;
  },
  ok: { statusCode: unknown; mediaType?: string },
): JsonObject {
  const { method, path } = input;
  const sample = (name: string, location: ParameterLocation): string =>
    sampleParameter(planned.declared.find((parameter) => parameter.name === name && parameter.in === location));
  let url = path.replace(/\{([^}]*)\}/g, (_whole, name: string) => encodeURIComponent(sample(name, 'path')));
  const required = (kind: Parameter['kind']): Parameter[] =>
    planned.parameters.filter((parameter) => parameter.kind === kind && parameter.required);
  const query = required('QUERY').map(
    ({ name }) => `${encodeURIComponent(name)}=${encodeURIComponent(sample(name, 'query'))}`,
  );
  if (query.length) url += `?${query.join('&')}`;
  const headers = [
    ...planned.headers,
    ...required('HEADER')
      .map(({ name }) => ({ field: name, content: sample(name, 'header') }))
      .filter((header) => isHeaderText(header.content)),
  ];
  const request: JsonObject = {};
  if (headers.length) request.headers = headers;
  if (typeof planned.mockBody === 'string') request.mockBody = planned.mockBody;
  const response: JsonObject = { statusCode: ok.statusCode };
  if (ok.mediaType) response.headers = [{ field: 'Content-Type', content: ok.mediaType }];
  return {
    name: planned.summary,
    description: `${method} ${path} answers ${String(ok.statusCode)}`,
    url,
    template: TEST_TEMPLATES[method],
    ...(Object.keys(request).length ? { request } : {}),
    response,
  };
}

/**
 * One method of a descriptor from an operation: summary (else the operationId), notes (its description),
 * parameters, request body (mock and schema files), responses and a test case of the OK response.
 */
export function planMethod(context: MappingContext, input: MethodInput): JsonObject {
  const { method, path, model, style } = input;
  const where = `${method} ${path}`;
  // The file names of `rest-tool add`'s templates: getCollection-responseBody.json, putResource-requestBody.json…
  const prefix = `${method.toLowerCase()}${capitalise(style.toLowerCase())}`;
  // By location (URL, QUERY, HEADER, then cookies), each in the order written, path item parameters first.
  const declared = [
    ...model.parameters.path,
    ...model.parameters.query,
    ...model.parameters.header,
    ...model.parameters.cookie,
  ];
  const parameters: Parameter[] = [];
  for (const raw of declared) {
    const mapped = toParameter(context, raw, where);
    if (mapped) parameters.push(mapped);
  }
  const { body, description } = planRequestBody(context, input, where);
  const { responses, ok } = planResponses(context, input, prefix, where);

  const request: JsonObject = {};
  if (parameters.length) request.parameters = parameters;
  const headers: Field[] = [];
  if (ok?.mediaType) headers.push({ field: 'Accept', content: ok.mediaType });
  if (body) headers.push({ field: 'Content-Type', content: body.mediaType });
  if (headers.length) request.headers = headers;
  if (body) {
    if (description !== undefined) request.description = description;
    const mock = mockOf(body);
    if (mock !== undefined) {
      request.mockBody = input.addJsonFile(`${prefix}-requestBody.json`, mock);
      context.counts.mockFiles += 1;
    }
    if (body.schema !== undefined) {
      request.validationSchema = input.addJsonFile(`${prefix}-requestSchema.json`, body.schema);
      context.counts.schemaFiles += 1;
    }
  }

  const summary = model.summary?.trim() || model.operationId || where;
  const planned: JsonObject = { summary };
  if (model.description !== undefined) planned.notes = model.description;
  if (Object.keys(request).length) planned.request = request;
  planned.responses = responses;
  // A test that reads the whole answer never ends on an event stream: none is made for one.
  if (ok && typeof ok.statusCode === 'number' && !ok.stream) {
    planned.testCases = [
      planTestCase(input, { summary, parameters, declared, headers, mockBody: request.mockBody }, ok),
    ];
    context.counts.testCases += 1;
  }
  context.counts.methods += 1;
  return planned;
}
