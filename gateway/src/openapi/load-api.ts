import SwaggerParser from '@apidevtools/swagger-parser';
import { HTTP_METHODS, RestbusError, type EndpointDesc, type HttpMethod, type ResponseDesc } from '@restbus/infra';
import { assertBoundedExpansion, type RefTarget } from './assert-bounded-expansion';
import { createApiFileReader } from './create-api-file-reader';
import { describeLoadError } from './describe-load-error';
import { toJsfUri, type ApiEndpoint } from './endpoint';
import { LOAD_LIMITS, type LoadLimits } from './load-limits';

type Json = Record<string, unknown>;

function firstExample(media: Json): unknown {
  if (media.example !== undefined) return media.example;
  const examples = media.examples as Record<string, Json> | undefined;
  const first = examples && Object.values(examples)[0];
  return first && typeof first === 'object' ? first.value : undefined;
}

function toResponses(operation: Json): { responses: Record<string, ResponseDesc>; mediaTypes: string[] } {
  const responses: Record<string, ResponseDesc> = {};
  const mediaTypes = new Set<string>();
  for (const [status, raw] of Object.entries(operation.responses as Record<string, Json>)) {
    const examples: Record<string, unknown> = { ...((raw.examples as Json | undefined) ?? {}) }; // Swagger 2
    for (const [type, media] of Object.entries((raw.content as Record<string, Json> | undefined) ?? {})) {
      mediaTypes.add(type);
      const example = firstExample(media ?? {});
      if (example !== undefined) examples[type] = example;
    }
    // Upstream sends no header descriptions, and dereferenced header schemas may be cyclic: names only.
    const headers = Object.fromEntries(Object.keys((raw.headers as Json | undefined) ?? {}).map((name) => [name, {}]));
    responses[status] = { status, headers, examples };
  }
  return { responses, mediaTypes: [...mediaTypes] };
}

function toEndpoint(document: Json, uri: string, method: HttpMethod, operation: Json): EndpointDesc {
  const { responses, mediaTypes } = toResponses(operation);
  const requestBody = operation.requestBody as Json | undefined;
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

/** easer's `x-static: {contentPath}` extension of an operation, checked: a folder to serve at its path. */
function readStaticContent(
  file: string,
  uri: string,
  method: string,
  extension: unknown,
): { contentPath: string } | undefined {
  if (extension === undefined) return undefined;
  const contentPath = (extension as Json | null)?.contentPath;
  if (typeof contentPath !== 'string' || contentPath === '') {
    throw new RestbusError(
      'OPENAPI_INVALID',
      `${file}: paths.${uri}.${method}.x-static needs a contentPath, the folder to serve (relative to --staticContentBasePath)`,
    );
  }
  return { contentPath };
}

/** Operation parameters override path item parameters of the same name and location. */
function mergeParameters(fromPath: unknown, fromOperation: unknown): Json[] {
  const merged = new Map<string, Json>();
  for (const parameter of [
    ...((fromPath as Json[] | undefined) ?? []),
    ...((fromOperation as Json[] | undefined) ?? []),
  ]) {
    merged.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
  }
  return [...merged.values()];
}

/** A path becomes part of a NATS subject: wildcard characters and whitespace would make it unsafe. */
function assertSafePath(file: string, uri: string): void {
  if (/[\s*>]/.test(uri)) {
    throw new RestbusError(
      'OPENAPI_INVALID',
      `${file}: the path "${uri}" contains whitespace or a NATS wildcard character ("*", ">"), which cannot be part of a subject`,
    );
  }
  if (/\.\.|\.$|\.\//.test(uri)) {
    throw new RestbusError(
      'OPENAPI_INVALID',
      `${file}: the path "${uri}" would give a subject with an empty token (a "." next to another "." or "/", or at the end)`,
    );
  }
}

export interface LoadOptions {
  /** Let `$refs` read local files outside the API file's folder (`--allowOutsideRefs`). */
  allowOutsideRefs?: boolean;
  limits?: Readonly<LoadLimits>;
}

/** The parts of the parser's `$refs` registry the measuring needs (typed loosely by swagger-parser). */
interface RefRegistry {
  _root$Ref: { path: string };
  _resolve(path: string, pathFromRoot: string, options?: unknown): { value: unknown; path: string } | null;
}

/** A `$ref` resolved against the file it is written in, as the parser does (paths are URL-like, no scheme). */
function resolveRefUrl(base: string, ref: string): string {
  const scratch = 'https://scratch.invalid';
  const resolved = new URL(ref, new URL(base, scratch));
  return resolved.origin === scratch ? resolved.pathname + resolved.search + resolved.hash : resolved.href;
}

/**
 * Parses, resolves, measures, dereferences and validates. The parser's dereferencing and schema validation walk
 * the document fully expanded, which repeated `$refs` make exponential, so the expanded size is measured (in
 * linear time) between resolving and dereferencing, and a document past the limits is refused before either.
 */
async function parseWithinLimits(file: string, options: LoadOptions): Promise<Json> {
  const limits = options.limits ?? LOAD_LIMITS;
  const reader = createApiFileReader({ file, allowOutsideRefs: options.allowOutsideRefs === true, limits });
  const parser = new SwaggerParser();
  const resolveAll = parser.resolve.bind(parser) as (...args: unknown[]) => Promise<unknown>;
  // validate() resolves through this.resolve: an own property puts the measuring between the two steps.
  Object.assign(parser, {
    async resolve(...args: unknown[]) {
      const refs = (await resolveAll(...args)) as RefRegistry;
      const parserOptions = args[2];
      assertBoundedExpansion({
        file,
        document: parser.api,
        url: refs._root$Ref.path,
        limits,
        resolveRef(ref: string, base: string): RefTarget | undefined {
          try {
            const pointer = refs._resolve(resolveRefUrl(base, ref), '', parserOptions);
            return pointer ? { value: pointer.value, url: pointer.path } : undefined;
          } catch {
            return undefined;
          }
        },
      });
      return refs;
    },
  });
  try {
    return (await parser.validate(file, {
      dereference: { circular: 'ignore' },
      resolve: { file: { read: ({ url }: { url: string }) => reader.read(url) } },
    })) as unknown as Json;
  } catch (err) {
    throw reader.refusal() ?? (err instanceof RestbusError ? err : describeLoadError(file, err));
  }
}

/**
 * Loads a Swagger 2.0 or OpenAPI 3.0/3.1 file (YAML or JSON, `$ref`s across files resolved), validates it against
 * the official schemas, and lists its operations as endpoints. Any problem is one `OPENAPI_INVALID` error naming
 * the file and what is wrong where. The work is bounded (see `LOAD_LIMITS`), and `$refs` read only regular files
 * inside the API file's folder unless `allowOutsideRefs`.
 */
export async function loadApi(file: string, options: LoadOptions = {}): Promise<ApiEndpoint[]> {
  const document = await parseWithinLimits(file, options);
  const dialect = document.swagger === '2.0' ? '2.0' : String(document.openapi).startsWith('3.1') ? '3.1' : '3.0';
  const endpoints: ApiEndpoint[] = [];
  for (const [uri, item] of Object.entries((document.paths ?? {}) as Record<string, Json>)) {
    assertSafePath(file, uri);
    for (const method of HTTP_METHODS) {
      const operation = item[method] as Json | undefined;
      if (!operation) continue;
      const parameters = mergeParameters(item.parameters, operation.parameters);
      const content = readStaticContent(file, uri, method, operation['x-static']);
      endpoints.push({
        desc: toEndpoint(document, uri, method, operation),
        file,
        operation: { ...operation, parameters },
        document,
        dialect,
        ...(content && { static: content }),
      });
    }
  }
  return endpoints;
}

/** The route a path template stands for: parameter names do not matter (`/a/{id}` and `/a/{name}` clash). */
function routeKey(desc: EndpointDesc): string {
  return `${desc.method} ${desc.uri.replace(/\{[^}]*\}/g, '{}').toLowerCase()}`;
}

/** Loads several files into one list of endpoints; the same method and path in two files is an error naming both. */
export async function loadApis(files: readonly string[], options: LoadOptions = {}): Promise<ApiEndpoint[]> {
  const all: ApiEndpoint[] = [];
  const seen = new Map<string, ApiEndpoint>();
  for (const file of files) {
    for (const endpoint of await loadApi(file, options)) {
      const key = routeKey(endpoint.desc);
      const earlier = seen.get(key);
      if (earlier) {
        throw new RestbusError(
          'OPENAPI_INVALID',
          `${endpoint.desc.method.toUpperCase()} ${endpoint.desc.uri} is described twice: in ${earlier.file} (as ${earlier.desc.uri}) and in ${endpoint.file}`,
        );
      }
      seen.set(key, endpoint);
      all.push(endpoint);
    }
  }
  return all;
}
