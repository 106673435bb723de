import Ajv from 'ajv';
import { HTTP_METHODS, RestbusError, type EndpointDesc, type HttpMethod, type ResponseDesc } from '@restbus/infra';
import { documentSchema } from './document-schema';
import { toJsfUri, type ApiEndpoint } from './endpoint';
import { readDocument } from './read-document';

type Json = Record<string, unknown>;

const validateDocument = new Ajv({ allErrors: true, strict: false }).compile(documentSchema);

function describePointer(pointer: string): string {
  return pointer === '' ? '/' : pointer.replace(/~1/g, '/').replace(/~0/g, '~');
}

/** Follows a local `$ref` (`#/components/...`); references to other files are not read yet. */
function resolve(document: Json, value: unknown, file: string): Json {
  let current = value as Json;
  for (let depth = 0; current && typeof current.$ref === 'string'; depth++) {
    const ref = current.$ref;
    if (!ref.startsWith('#/') || depth > 20) {
      throw new RestbusError(
        'OPENAPI_INVALID',
        `${file}: cannot resolve $ref "${ref}" (only references inside the file are supported)`,
      );
    }
    current = ref
      .slice(2)
      .split('/')
      .reduce<unknown>(
        (node, token) => (node as Json | undefined)?.[token.replace(/~1/g, '/').replace(/~0/g, '~')],
        document,
      ) as Json;
    if (current === undefined) throw new RestbusError('OPENAPI_INVALID', `${file}: $ref "${ref}" points at nothing`);
  }
  return current ?? {};
}

function firstExample(media: Json): unknown {
  if (media.example !== undefined) return media.example;
  const examples = media.examples as Record<string, Json> | undefined;
  const first = examples && Object.values(examples)[0];
  return first && typeof first === 'object' ? first.value : undefined;
}

function toResponses(
  document: Json,
  operation: Json,
  file: string,
): { responses: Record<string, ResponseDesc>; mediaTypes: string[] } {
  const responses: Record<string, ResponseDesc> = {};
  const mediaTypes = new Set<string>();
  for (const [status, raw] of Object.entries(operation.responses as Json)) {
    const response = resolve(document, raw, file);
    const examples: Record<string, unknown> = { ...((response.examples as Json | undefined) ?? {}) }; // Swagger 2
    for (const [type, media] of Object.entries((response.content as Record<string, Json> | undefined) ?? {})) {
      mediaTypes.add(type);
      const example = firstExample(resolve(document, media, file));
      if (example !== undefined) examples[type] = example;
    }
    responses[status] = { status, headers: (response.headers as Json | undefined) ?? {}, examples };
  }
  return { responses, mediaTypes: [...mediaTypes] };
}

function toEndpoint(document: Json, uri: string, method: HttpMethod, operation: Json, file: string): EndpointDesc {
  const { responses, mediaTypes } = toResponses(document, operation, file);
  const requestBody = operation.requestBody ? resolve(document, operation.requestBody, file) : undefined;
  const consumes = (operation.consumes ??
    document.consumes ??
    Object.keys((requestBody?.content as Json | undefined) ?? {})) as string[];
  const produces = [...new Set([...((operation.produces ?? document.produces ?? []) as string[]), ...mediaTypes])];
  return {
    uri,
    jsfUri: toJsfUri(uri),
    method,
    operationId: typeof operation.operationId === 'string' ? operation.operationId : null,
    consumes,
    produces,
    responses,
  };
}

/**
 * Loads a Swagger 2.0 or OpenAPI 3.x file (YAML or JSON) and lists its operations as endpoints.
 * Any problem stops with one `OPENAPI_INVALID` error naming the file and what is wrong where.
 */
export async function loadApi(file: string): Promise<ApiEndpoint[]> {
  const document = await readDocument(file);
  if (!validateDocument(document)) {
    const problems = (validateDocument.errors ?? [])
      .filter(
        (error) =>
          error.keyword !== 'oneOf' &&
          !(error.keyword === 'required' && ['openapi', 'swagger'].includes(String(error.params.missingProperty))),
      )
      .map((error) => `${describePointer(error.instancePath)}: ${error.message ?? 'is invalid'}`);
    const message = problems.length
      ? problems.join('; ')
      : 'it has neither an "openapi: 3.x" nor a "swagger: 2.0" field';
    throw new RestbusError('OPENAPI_INVALID', `${file}: not a valid API description: ${message}`);
  }
  const doc = document as unknown as Json;
  const endpoints: ApiEndpoint[] = [];
  for (const [uri, item] of Object.entries(doc.paths as Record<string, Json>)) {
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (operation) endpoints.push({ desc: toEndpoint(doc, uri, method, operation, file), file });
    }
  }
  return endpoints;
}
