import {
  isJsonObject,
  RestbusError,
  type EndpointDesc,
  type HttpMethod,
  type JsonObject,
  type ResponseDesc,
} from '@restbus/infra';
import {
  checkRoutes,
  formatDiagnostic,
  formatPath,
  readApiDescription,
  toPrintable,
  type Diagnostic,
  type ReadOptions,
  type SourceFile,
} from '@restbus/openapi';
import { createApiLinter, type ApiLinter } from './create-api-linter';
import { toJsfUri, type ApiEndpoint } from './endpoint';

/** A lenient document may have anything where an object belongs: it reads as empty (and the linter says so). */
const asObject = (value: unknown): JsonObject => (isJsonObject(value) ? value : {});
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;

function firstExample(media: JsonObject): unknown {
  if (media.example !== undefined) return media.example;
  const first = Object.values(asObject(media.examples))[0];
  return isJsonObject(first) ? first.value : undefined;
}

function toResponses(operation: JsonObject): { responses: Record<string, ResponseDesc>; mediaTypes: string[] } {
  const responses: Record<string, ResponseDesc> = {};
  const mediaTypes = new Set<string>();
  for (const [status, raw] of Object.entries(asObject(operation.responses))) {
    if (!isJsonObject(raw)) continue;
    const examples: Record<string, unknown> = { ...asObject(raw.examples) }; // Swagger 2
    for (const [type, media] of Object.entries(asObject(raw.content))) {
      mediaTypes.add(type);
      const example = firstExample(asObject(media));
      if (example !== undefined) examples[type] = example;
    }
    // Upstream sends no header descriptions, and dereferenced header schemas may be cyclic: names only.
    const headers = Object.fromEntries(Object.keys(asObject(raw.headers)).map((name) => [name, {}]));
    responses[status] = { status, headers, examples };
  }
  return { responses, mediaTypes: [...mediaTypes] };
}

function toEndpoint(document: JsonObject, uri: string, method: HttpMethod, operation: JsonObject): EndpointDesc {
  const { responses, mediaTypes } = toResponses(operation);
  const consumes =
    strings(operation.consumes ?? document.consumes) ?? Object.keys(asObject(asObject(operation.requestBody).content));
  const produces = [...new Set([...(strings(operation.produces ?? document.produces) ?? []), ...mediaTypes])];
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

export interface LoadOptions extends Omit<ReadOptions, 'lint' | 'checkSchema'> {
  /** Warnings refuse the description too (`--strict`). */
  strict?: boolean;
  /** One linter for every load (a reload): building its ruleset costs more than linting a small file. */
  linter?: ApiLinter;
  /**
   * Resolve once the files are read, checked and their routes listed, without waiting for the lint (Spectral, in its
   * worker): its warnings come in `lint` when every file is linted. The lint finds warnings only, never an error.
   */
  deferLint?: boolean;
}

export interface LoadedApis {
  /** The endpoints of every file; none when any file has an error. */
  endpoints: ApiEndpoint[];
  /** Errors and warnings, file by file in the order found (with `deferLint`, those of the lint are in `lint`). */
  diagnostics: Diagnostic[];
  /** With `deferLint`: the lint's warnings, file by file in the order found, once every file is linted. */
  lint?: Promise<Diagnostic[]>;
}

interface LoadedFile {
  endpoints: ApiEndpoint[];
  diagnostics: Diagnostic[];
  source?: SourceFile;
  /** With `deferLint`: the lint's warnings about this file, when they are known. */
  lint?: Promise<Diagnostic[]>;
}

/**
 * One file: read into its model by @restbus/openapi (see readApiDescription), linted (warnings), and its routable
 * operations listed as endpoints (see checkRoutes). Only what keeps a route from being built is an error; the rest
 * is served past, as the peers do.
 */
async function loadApiFile(file: string, options: LoadOptions, linter: ApiLinter): Promise<LoadedFile> {
  let lint: Promise<Diagnostic[]> | undefined;
  const description = await readApiDescription(file, {
    ...options,
    // Deferred: started here, awaited by whoever reads `lint`. A linter that fails says so as a warning.
    lint: options.deferLint
      ? (source) => {
          lint = linter.lint(source).catch((err: unknown) => [
            {
              severity: 'warning' as const,
              file,
              path: '',
              message: `could not be checked for warnings: ${String(err)}`,
            },
          ]);
          return Promise.resolve([]);
        }
      : (source) => linter.lint(source),
  });
  const { model: api, document, source } = description;
  if (!api || !document) return { endpoints: [], diagnostics: description.diagnostics, source, lint };
  const routes = checkRoutes(description);
  const paths = asObject(document.paths);
  const endpoints = routes.operations.map((model): ApiEndpoint => {
    const item = asObject(paths[model.path]);
    const operation = asObject(item[model.method]);
    return {
      desc: toEndpoint(document, model.path, model.method, operation),
      model,
      api,
      file,
      ...(model.static && { static: model.static }),
    };
  });
  return { endpoints, diagnostics: [...description.diagnostics, ...routes.diagnostics], source, lint };
}

/** In the order a person reads the file; what has no line first (it concerns the whole file). */
function sortByPosition(diagnostics: Diagnostic[]): Diagnostic[] {
  return diagnostics
    .map((diagnostic, i) => ({ diagnostic, i }))
    .sort(
      (a, b) =>
        (a.diagnostic.line ?? 0) - (b.diagnostic.line ?? 0) ||
        (a.diagnostic.column ?? 0) - (b.diagnostic.column ?? 0) ||
        a.i - b.i,
    )
    .map(({ diagnostic }) => diagnostic);
}

/** The route a path template stands for: parameter names do not matter (`/a/{id}` and `/a/{name}` clash). */
function routeKey(desc: EndpointDesc): string {
  return `${desc.method} ${desc.uri.replace(/\{[^}]*\}/g, '{}').toLowerCase()}`;
}

/**
 * Loads several files into one list of endpoints with every problem found: each file's own, and a route that
 * two operations claim (in one file or two). Never throws for a document's problems; see assertServable.
 */
export async function readApis(files: readonly string[], options: LoadOptions = {}): Promise<LoadedApis> {
  const linter = options.linter ?? createApiLinter();
  const diagnostics: Diagnostic[] = [];
  const endpoints: ApiEndpoint[] = [];
  const seen = new Map<string, ApiEndpoint>();
  const lints: Array<Promise<Diagnostic[]>> = [];
  for (const file of files) {
    const loaded = await loadApiFile(file, options, linter);
    if (loaded.lint) lints.push(loaded.lint.then(sortByPosition));
    for (const endpoint of loaded.endpoints) {
      const { method, uri } = endpoint.desc;
      const earlier = seen.get(routeKey(endpoint.desc));
      if (earlier) {
        const path = ['paths', uri, method];
        loaded.diagnostics.push({
          severity: 'error',
          file,
          ...loaded.source?.locate(path),
          path: formatPath(path),
          message: `${method.toUpperCase()} ${uri} is described twice: also ${earlier.file === file ? '' : `in ${earlier.file} `}as ${earlier.desc.uri}`,
        });
        continue;
      }
      seen.set(routeKey(endpoint.desc), endpoint);
      endpoints.push(endpoint);
    }
    diagnostics.push(...sortByPosition(loaded.diagnostics));
  }
  const failed = diagnostics.some(({ severity }) => severity === 'error');
  // A document's keys and texts reach terminals and logs: never a control character among them.
  return {
    endpoints: failed ? [] : endpoints,
    diagnostics: diagnostics.map(toPrintable),
    ...(options.deferLint && {
      lint: Promise.all(lints).then((found) => found.flat().map(toPrintable)),
    }),
  };
}

/** The endpoints, or `OPENAPI_INVALID` listing every error (and, when `strict`, every warning), a line each. */
export function assertServable(loaded: LoadedApis, strict = false): ApiEndpoint[] {
  const fatal = loaded.diagnostics
    .filter(({ severity }) => strict || severity === 'error')
    .map((diagnostic) => ({ ...diagnostic, severity: 'error' as const }));
  if (fatal.length === 0) return loaded.endpoints;
  const lines = fatal.map(formatDiagnostic);
  throw new RestbusError(
    'OPENAPI_INVALID',
    lines.length === 1
      ? lines[0]
      : `${fatal[0].file}: ${lines.length} problems keep the API description from being served:\n${lines.map((line) => `  ${line}`).join('\n')}`,
    { details: { diagnostics: fatal } },
  );
}

/** Loads several files, or throws `OPENAPI_INVALID` (see assertServable). */
export async function loadApis(files: readonly string[], options: LoadOptions = {}): Promise<ApiEndpoint[]> {
  return assertServable(await readApis(files, options), options.strict);
}

/**
 * Loads a Swagger 2.0 or OpenAPI 3.0/3.1 file (YAML or JSON, `$ref`s across files resolved) and lists its
 * operations as endpoints, or throws `OPENAPI_INVALID` naming every error with its line. The work is bounded (see
 * `LOAD_LIMITS`), and `$refs` read only regular files inside the API file's folder unless `allowOutsideRefs`.
 */
export async function loadApi(file: string, options: LoadOptions = {}): Promise<ApiEndpoint[]> {
  return loadApis([file], options);
}
