import { extname } from 'node:path';
import { pathToFileURL } from 'node:url';
import { isJsonObject, readErrorMessage, RestbusError, type JsonObject } from '@restbus/infra';
import { parse as parseYaml } from 'yaml';
import { createApiFileReader } from './create-api-file-reader';
import { formatPath, type Diagnostic } from './diagnostic';
import { isRemoteUrl } from './find-url-refs';
import type { LoadLimits } from './load-limits';
import type { SourceFile } from './read-source-file';

export interface ExternalExamplesDeps {
  /** The API file as given: `externalValue`s are read relative to it. */
  file: string;
  /** The dereferenced document. */
  document: JsonObject;
  source?: SourceFile;
  allowOutsideRefs: boolean;
  limits: Readonly<LoadLimits>;
}

export interface ExternalExamples {
  /** Each Example object given only by `externalValue` whose file could be read, with the value read. */
  values: Map<object, unknown>;
  /** A warning for each one that could not be read: it is left out. */
  diagnostics: Diagnostic[];
  /** The example files read. */
  files: readonly string[];
}

type Path = Array<string | number>;
type FoundExample = { example: JsonObject; path: Path };

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'];

/**
 * Example objects with an `externalValue` and no `value`, each once, with where it is first met. Only where OpenAPI
 * puts Example objects (parameters, media types, headers of the operations): an example's own value and a schema are
 * data, never walked, so a deep example costs nothing here and an `examples` member inside one is not taken for one.
 */
function findExternalExamples(document: JsonObject): FoundExample[] {
  const found: FoundExample[] = [];
  const seen = new Set<object>();
  const takeExamples = (holder: unknown, path: Path): void => {
    if (!isJsonObject(holder) || !isJsonObject(holder.examples)) return;
    for (const [name, example] of Object.entries(holder.examples)) {
      if (!isJsonObject(example) || seen.has(example)) continue;
      seen.add(example);
      if (typeof example.externalValue === 'string' && example.value === undefined) {
        found.push({ example, path: [...path, 'examples', name] });
      }
    }
  };
  const takeContent = (holder: unknown, path: Path): void => {
    if (!isJsonObject(holder) || !isJsonObject(holder.content)) return;
    for (const [type, media] of Object.entries(holder.content)) {
      takeExamples(media, [...path, 'content', type]);
      if (isJsonObject(media) && isJsonObject(media.encoding)) {
        for (const [property, encoding] of Object.entries(media.encoding)) {
          takeHeaders(encoding, [...path, 'content', type, 'encoding', property]);
        }
      }
    }
  };
  const takeHeaders = (holder: unknown, path: Path): void => {
    if (!isJsonObject(holder) || !isJsonObject(holder.headers)) return;
    for (const [name, header] of Object.entries(holder.headers)) {
      takeExamples(header, [...path, 'headers', name]);
      takeContent(header, [...path, 'headers', name]);
    }
  };
  const takeParameters = (holder: JsonObject, path: Path): void => {
    if (!Array.isArray(holder.parameters)) return;
    holder.parameters.forEach((parameter: unknown, index) => {
      takeExamples(parameter, [...path, 'parameters', index]);
      takeContent(parameter, [...path, 'parameters', index]);
    });
  };
  for (const [template, item] of Object.entries(isJsonObject(document.paths) ? document.paths : {})) {
    if (!isJsonObject(item)) continue;
    takeParameters(item, ['paths', template]);
    for (const method of METHODS) {
      const operation = item[method];
      if (!isJsonObject(operation)) continue;
      const at: Path = ['paths', template, method];
      takeParameters(operation, at);
      takeContent(operation.requestBody, [...at, 'requestBody']);
      for (const [status, response] of Object.entries(isJsonObject(operation.responses) ? operation.responses : {})) {
        takeContent(response, [...at, 'responses', status]);
        takeHeaders(response, [...at, 'responses', status]);
      }
    }
  }
  return found;
}

function parseExample(bytes: Buffer, path: string): unknown {
  const text = bytes.toString('utf8');
  const type = extname(path).toLowerCase();
  if (type === '.json') {
    try {
      return JSON.parse(text);
    } catch {
      throw new Error('it is not valid JSON');
    }
  }
  if (type === '.yaml' || type === '.yml') {
    try {
      return parseYaml(text);
    } catch {
      throw new Error('it is not valid YAML');
    }
  }
  return text;
}

/**
 * The values of the document's examples given only by `externalValue` (OpenAPI 3.x): each a local file relative to
 * the API file, read as `$ref`s are (regular files within the limits, inside the API file's folder unless allowed,
 * never fetched), parsed as JSON or YAML by its extension, else kept as text. One that cannot be read is left out
 * with a warning at its line: examples are documentation, and the description serves without them.
 */
export async function readExternalExamples(deps: ExternalExamplesDeps): Promise<ExternalExamples> {
  const { file, document, source } = deps;
  const values = new Map<object, unknown>();
  const diagnostics: Diagnostic[] = [];
  const found = findExternalExamples(document);
  if (found.length === 0) return { values, diagnostics, files: [] };
  const reader = createApiFileReader({ file, allowOutsideRefs: deps.allowOutsideRefs, limits: deps.limits });
  const base = pathToFileURL(file);
  const prefix = `${file}: cannot resolve a $ref: `;
  for (const { example, path } of found) {
    const written = String(example.externalValue);
    const warn = (why: string): void => {
      const at = [...path, 'externalValue'];
      diagnostics.push({
        severity: 'warning',
        file,
        ...source?.locate(at),
        path: formatPath(at),
        message: `the example's externalValue ${JSON.stringify(written)} ${why}: the example is left out`,
      });
    };
    let url: URL | undefined;
    try {
      url = new URL(written, base);
    } catch {
      url = undefined;
    }
    if (isRemoteUrl(written) || url?.protocol !== 'file:') {
      warn('names a URL, and examples are read only from local files');
      continue;
    }
    try {
      values.set(example, parseExample(await reader.read(url.href), url.pathname));
    } catch (err) {
      const message = readErrorMessage(err);
      const why = err instanceof RestbusError && message.startsWith(prefix) ? message.slice(prefix.length) : message;
      warn(`cannot be read (${why})`);
    }
  }
  return { values, diagnostics, files: reader.files() };
}
