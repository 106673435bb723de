import {
  HTTP_METHODS,
  RestbusError,
  toTopic,
  topicPrefixSetting,
  type EndpointDesc,
  type HttpMethod,
  type ResponseDesc,
} from '@restbus/infra';
import { buildApiModel } from '@restbus/openapi';
import { createApiLinter, type ApiLinter } from './create-api-linter';
import type { SourceFile } from './read-source-file';
import { formatDiagnostic, formatPath, toPrintable, type Diagnostic } from './diagnostic';
import { parseApiFile, type ParseOptions } from './parse-api-file';
import { toJsfUri, type ApiEndpoint } from './endpoint';
import { checkSubjectLength, findControlCharacter } from './subject-limits';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
/** A lenient document may have anything where an object belongs: it reads as empty (and the linter says so). */
const asObject = (value: unknown): Json => (isObject(value) ? value : {});
const strings = (value: unknown): string[] | undefined =>
  Array.isArray(value) ? value.filter((item): item is string => typeof item === 'string') : undefined;

function firstExample(media: Json): unknown {
  if (media.example !== undefined) return media.example;
  const first = Object.values(asObject(media.examples))[0];
  return isObject(first) ? first.value : undefined;
}

function toResponses(operation: Json): { responses: Record<string, ResponseDesc>; mediaTypes: string[] } {
  const responses: Record<string, ResponseDesc> = {};
  const mediaTypes = new Set<string>();
  for (const [status, raw] of Object.entries(asObject(operation.responses))) {
    if (!isObject(raw)) continue;
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

function toEndpoint(document: Json, uri: string, method: HttpMethod, operation: Json): EndpointDesc {
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

/** Operation parameters override path item parameters of the same name and location. */
function mergeParameters(fromPath: unknown, fromOperation: unknown): Json[] {
  const merged = new Map<string, Json>();
  for (const parameter of [
    ...(Array.isArray(fromPath) ? fromPath : []),
    ...(Array.isArray(fromOperation) ? fromOperation : []),
  ]) {
    if (isObject(parameter)) merged.set(`${String(parameter.in)}:${String(parameter.name)}`, parameter);
  }
  return [...merged.values()];
}

/** Why a path cannot be routed (and become part of a NATS subject), or undefined when it can. */
function checkPathTemplate(uri: string): string | undefined {
  if (!uri.startsWith('/')) return 'a path must start with "/"';
  const control = findControlCharacter(uri);
  if (control) return `the path contains ${control}, which cannot be part of a NATS subject`;
  if (/[\s*>]/.test(uri)) {
    return 'the path contains whitespace or a NATS wildcard character ("*", ">"), which cannot be part of a subject';
  }
  if (/\.\.|\.$|\.\//.test(uri)) {
    return 'the path would give a subject with an empty token (a "." next to another "." or "/", or at the end)';
  }
  if (!/^(?:[^{}]|\{[^{}/]+\})*$/.test(uri)) {
    return 'not a valid path template: each "{" opens a parameter name that a "}" closes before the next "/"';
  }
  const names = [...uri.matchAll(/\{([^}]+)\}/g)].map((match) => match[1]);
  const twice = names.find((name, i) => names.indexOf(name) !== i);
  if (twice !== undefined) return `the path names the parameter {${twice}} twice`;
  return undefined;
}

/** `2.0`, `3.0` or `3.1` (3.2 and later minor versions are read as 3.1), or undefined for anything else. */
function readDialect(document: Json): ApiEndpoint['dialect'] | undefined {
  if (document.swagger !== undefined)
    return String(document.swagger) === '2.0' || document.swagger === 2 ? '2.0' : undefined;
  if (document.openapi === undefined) return undefined;
  const version = String(document.openapi);
  if (/^3(\.0(\.|$)|$)/.test(version)) return '3.0';
  return /^3\.[1-9]/.test(version) ? '3.1' : undefined;
}

export interface LoadOptions extends ParseOptions {
  /** Warnings refuse the description too (`--strict`). */
  strict?: boolean;
  /** The first tokens of every subject (`--topicPrefix`), counted in each route's subject; `easer` when absent. */
  topicPrefix?: string;
  /** One linter for every load (a reload): building its ruleset costs more than linting a small file. */
  linter?: ApiLinter;
}

export interface LoadedApis {
  /** The endpoints of every file; none when any file has an error. */
  endpoints: ApiEndpoint[];
  /** Errors and warnings, file by file in the order found. */
  diagnostics: Diagnostic[];
}

interface LoadedFile {
  endpoints: ApiEndpoint[];
  diagnostics: Diagnostic[];
  source?: SourceFile;
}

/**
 * One file: read and dereferenced (see parseApiFile), linted (warnings), and its operations listed as endpoints.
 * Only what keeps a route from being built is an error: no paths, an invalid path template or one NATS cannot
 * carry (a control character, a subject too long for its protocol line), an operation's `$ref` that cannot be
 * resolved, a `$ref` to a URL, an `x-static` without a folder. The rest is served past, as the peers do.
 */
async function loadApiFile(file: string, options: LoadOptions, linter: ApiLinter): Promise<LoadedFile> {
  const topicPrefix = options.topicPrefix ?? String(topicPrefixSetting.schema.default);
  const parsed = await parseApiFile(file, options);
  const diagnostics = [...parsed.diagnostics];
  const { document, source } = parsed;
  if (!document) return { endpoints: [], diagnostics };
  if (source) diagnostics.push(...(await linter.lint(source)));
  const error = (path: Array<string | number>, message: string): void => {
    diagnostics.push({ severity: 'error', file, ...source?.locate(path), path: formatPath(path), message });
  };
  const dialect = readDialect(document);
  if (!dialect) {
    error([], 'not an API description the gateway reads: it needs openapi: 3.0.x or 3.1.x, or swagger: "2.0"');
    return { endpoints: [], diagnostics, source };
  }
  if (dialect === '3.1' && !/^3\.1(\.|$)/.test(String(document.openapi))) {
    diagnostics.push({
      severity: 'warning',
      file,
      ...source?.locate(['openapi']),
      path: 'openapi',
      message: `OpenAPI ${String(document.openapi)} is read as 3.1: what later versions added is not understood`,
    });
  }
  if (!isObject(document.paths)) {
    error(document.paths === undefined ? [] : ['paths'], 'describes no paths: there is nothing to serve');
    return { endpoints: [], diagnostics, source };
  }
  const api = buildApiModel(document, { file, dialect, topicPrefix });
  const models = new Map(api.operations.map((operation) => [`${operation.method} ${operation.path}`, operation]));
  const endpoints: ApiEndpoint[] = [];
  for (const [uri, item] of Object.entries(document.paths)) {
    if (!isObject(item)) continue;
    const problem = checkPathTemplate(uri);
    if (problem) {
      error(['paths', uri], problem);
      continue;
    }
    for (const method of HTTP_METHODS) {
      const operation = item[method];
      if (!isObject(operation)) continue;
      const staticContent = operation['x-static'];
      const contentPath = asObject(staticContent).contentPath;
      if (staticContent !== undefined && (typeof contentPath !== 'string' || contentPath === '')) {
        error(
          ['paths', uri, method, 'x-static'],
          'needs a contentPath, the folder to serve (relative to --staticContentBasePath)',
        );
        continue;
      }
      // Checked with or without -u (--check and a start without it say what -u would refuse); an x-static
      // operation is served from its folder and has no subject.
      const subject = toTopic(topicPrefix, method, uri);
      const tooLong =
        staticContent === undefined &&
        checkSubjectLength(subject, `the subject ${[...subject].slice(0, 48).join('')}…`);
      if (tooLong) {
        error(['paths', uri, method], tooLong);
        continue;
      }
      endpoints.push({
        desc: toEndpoint(document, uri, method, operation),
        // Every object operation of paths is in the model, by the same method and path.
        model: models.get(`${method} ${uri}`)!,
        api,
        file,
        operation: { ...operation, parameters: mergeParameters(item.parameters, operation.parameters) },
        document,
        dialect,
        ...(typeof contentPath === 'string' && { static: { contentPath } }),
      });
    }
  }
  if (endpoints.length === 0 && !diagnostics.some(({ severity }) => severity === 'error')) {
    error(['paths'], 'describes no operation: there is nothing to serve');
  }
  return { endpoints, diagnostics, source };
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
  for (const file of files) {
    const loaded = await loadApiFile(file, options, linter);
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
  return { endpoints: failed ? [] : endpoints, diagnostics: diagnostics.map(toPrintable) };
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
