import { resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { $RefParser, ResolverError, type ParserOptions } from '@apidevtools/json-schema-ref-parser';
import { isJsonObject, readErrorMessage, RestbusError, type JsonObject } from '@restbus/infra';
import { assertBoundedExpansion, type RefTarget } from './assert-bounded-expansion';
import { createApiFileReader, REMOTE_REF } from './create-api-file-reader';
import { diagnoseLoadError, readParserFailure, type ParserFailure } from './diagnose-load-error';
import { formatPath, type Diagnostic } from './diagnostic';
import { findUrlRefs, resolveRefUrl, type UrlRef } from './find-url-refs';
import { LOAD_LIMITS, type LoadLimits } from './load-limits';
import { readSourceFile, type SourceFile } from './read-source-file';
import { valueAt } from './value-at';

export interface ParseOptions {
  /** Let `$refs` read local files outside the API file's folder (`--allowOutsideRefs`). */
  allowOutsideRefs?: boolean;
  limits?: Readonly<LoadLimits>;
}

export interface ParsedApiFile {
  /** The dereferenced document (a cycle's `$refs` left in place); absent when the file could not be read at all. */
  document?: JsonObject;
  /** The API file's own text, for the linter and for source positions. */
  source?: SourceFile;
  /** What could not be read or resolved: errors, and warnings for `$refs` no operation reaches. */
  diagnostics: Diagnostic[];
  /** Every file read (absolute paths): the API file first, then those its `$refs` named. */
  files: readonly string[];
}

/** The file a parser path names, as the diagnostics name files: the API file as given, any other decoded. */
function toFileName(file: string, rootUrl: string, url: string): string {
  if (url === rootUrl) return file;
  try {
    return url.startsWith('file:') ? fileURLToPath(url) : decodeURIComponent(url);
  } catch {
    return url;
  }
}

/** A `$ref` to a URL, where it is written: refused whether or not an operation uses it, since nothing is fetched. */
function diagnoseUrlRef(file: string, rootUrl: string, found: UrlRef, source: SourceFile | undefined): Diagnostic {
  const resolvedTo = found.target === found.ref ? '' : ` (${found.target})`;
  return {
    severity: 'error',
    file: toFileName(file, rootUrl, found.file),
    ...(found.file === rootUrl && source?.locate(found.path)),
    path: formatPath(found.path),
    message: `the $ref ${JSON.stringify(found.ref)} names a URL${resolvedTo}: $refs are read only from local files, never fetched`,
  };
}

/** Whether any operation reaches `target` (an object of the dereferenced document), cycles followed once. */
function reachesFromOperations(document: JsonObject, target: object): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = isJsonObject(document.paths) ? Object.values(document.paths) : [];
  while (stack.length > 0) {
    const value = stack.pop();
    if (typeof value !== 'object' || value === null || seen.has(value)) continue;
    if (value === target) return true;
    seen.add(value);
    stack.push(...Object.values(value));
  }
  return false;
}

/**
 * Reads the API file and the files its `$refs` name (local files only, within the limits, inside its folder
 * unless allowed; a `$ref` to a URL is an error where it is written, and nothing is ever fetched),
 * measures the expansion between resolving and dereferencing (the parser's dereferencing walks the document
 * fully expanded, which repeated `$refs` make exponential), and dereferences it, collecting what fails instead of
 * stopping at the first. An unresolvable `$ref` is an error when an operation reaches it, a warning otherwise.
 */
export async function parseApiFile(file: string, options: ParseOptions = {}): Promise<ParsedApiFile> {
  const limits = options.limits ?? LOAD_LIMITS;
  const reader = createApiFileReader({ file, allowOutsideRefs: options.allowOutsideRefs === true, limits });
  let text: string | undefined;
  let urlRefs: UrlRef[] = [];
  let rootUrl = '';
  const parser = new $RefParser();
  const resolveAll = parser.resolve.bind(parser);
  let bundled = false;
  // bundle() and dereference() resolve through this.resolve: an own property puts the measuring between resolving
  // and bundling, and lets dereference() work on the bundled document with the files already read.
  Object.assign(parser, {
    async resolve(path: string, schema: unknown, parserOptions: ParserOptions) {
      if (bundled) return parser.$refs;
      const refs = await resolveAll(path, schema, parserOptions);
      assertBoundedExpansion({
        file,
        document: parser.schema,
        url: refs._root$Ref.path ?? '',
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
      // Every file is read by now: name each `$ref` to a URL where it is written (the reader fetched none of them).
      rootUrl = refs._root$Ref.path ?? '';
      urlRefs = findUrlRefs(
        Object.entries(refs._$refs)
          .filter(([, ref]) => ref.pathType === 'file' && !(ref.value instanceof Error))
          // The parser types a file's value as any: here it is what it is, unknown.
          .map(([url, ref]): { url: string; value: unknown } => ({ url, value: ref.value })),
      );
      return refs;
    },
  });
  const read = async ({ url }: { url: string }): Promise<Buffer> => {
    let bytes: Buffer;
    try {
      bytes = await reader.read(url);
    } catch (err) {
      // The parser keeps a ResolverError as it is; any other it wraps, losing its text and code.
      throw new ResolverError(err, url);
    }
    // The parser reads the API file first, then the files its `$refs` name.
    text ??= bytes.toString('utf8');
    return bytes;
  };
  let failures: ParserFailure[] = [];
  const parserOptions = {
    continueOnError: true,
    dereference: { circular: 'ignore' as const },
    // One resolver for everything, local paths and URLs alike: the reader, which fetches nothing.
    resolve: { http: false as const, file: { canRead: () => true, read } },
  };
  try {
    // Bundled first, every other file's part moved into the document: a cycle that crosses files then leaves
    // `$ref`s that point into the document (`#/…`), which its schemaRoot resolves, not into another file.
    // What fails here is collected again by dereference(), which reports it where it is written.
    await parser.bundle(file, parserOptions).catch((err: unknown) => {
      if (reader.refusal() ?? err instanceof RestbusError) throw err;
      if (!hasErrors(err)) throw err;
    });
    bundled = true;
    await parser.dereference(file, parserOptions);
  } catch (err) {
    const refused = reader.refusal() ?? (err instanceof RestbusError ? err : undefined);
    if (refused)
      return {
        diagnostics: [{ severity: 'error', file, path: '', message: withoutFile(file, refused.message) }],
        files: reader.files(),
      };
    failures = hasErrors(err) ? err.errors.map(readParserFailure) : [readParserFailure(err)];
  }
  const document: unknown = parser.schema;
  if (failures.length > 0 && (typeof document !== 'object' || document === null)) {
    return { diagnostics: failures.map((failure) => diagnoseLoadError(file, failure)), files: reader.files() };
  }
  if (!isJsonObject(document)) {
    // An empty file, a scalar or a list parses without complaint, and describes nothing.
    const message = 'not an API description: the file holds no mapping of OpenAPI fields';
    return { diagnostics: [{ severity: 'error', file, line: 1, column: 1, path: '', message }], files: reader.files() };
  }
  let source: SourceFile | undefined;
  try {
    source = text === undefined ? undefined : readSourceFile(file, text);
  } catch (err) {
    // The position parser is another YAML parser than the loader's: what it cannot read still loads, unlocated.
    failures.push({ code: 'ENOSOURCE', message: `has no line numbers or warnings: ${readErrorMessage(err)}` });
  }
  // The reader's own refusals of those `$refs` say less (the URL resolved, not where it is written).
  const named = new Set(urlRefs.map((found) => found.target.replace(/#.*$/, '')));
  const unnamed = failures.filter(
    (failure) => failure.ioErrorCode !== REMOTE_REF || !named.has(String(failure.message).split(' ')[0]),
  );
  const diagnostics = withoutRepeats(unnamed).map((failure): Diagnostic => {
    const diagnostic = diagnoseLoadError(file, failure);
    const position =
      diagnostic.line === undefined && failure.path && isRootFile(file, failure.source)
        ? source?.locate(failure.path)
        : undefined;
    // A `$ref` that failed is null in the document: an operation reaching the object that holds it cannot be built.
    const holder = failure.path && failure.path.length > 0 ? valueAt(document, failure.path.slice(0, -1)) : undefined;
    const needed =
      failure.ioErrorCode === REMOTE_REF ||
      typeof holder !== 'object' ||
      holder === null ||
      reachesFromOperations(document, holder);
    return {
      ...diagnostic,
      ...position,
      ...(!needed && { severity: 'warning', message: `${diagnostic.message} (no operation uses it)` }),
    };
  });
  diagnostics.push(...urlRefs.map((found) => diagnoseUrlRef(file, rootUrl, found, source)));
  return { document, source, diagnostics, files: reader.files() };
}

/** What the parser throws when it collects failures (`continueOnError`) instead of stopping at the first. */
function hasErrors(err: unknown): err is { errors: unknown[] } {
  return typeof err === 'object' && err !== null && 'errors' in err && Array.isArray(err.errors);
}

/** The parser reports a missing pointer once where it is written and once more for the document: said once. */
function withoutRepeats(failures: ParserFailure[]): ParserFailure[] {
  const located = new Set(failures.filter((failure) => failure.path?.length).map((failure) => failure.message));
  return failures.filter((failure) => failure.path?.length || !located.has(failure.message));
}

/** The parser names files as absolute paths, percent-encoded. */
function isRootFile(file: string, source: string | undefined): boolean {
  if (source === undefined) return true;
  try {
    return resolve(decodeURIComponent(source)) === resolve(file);
  } catch {
    return false;
  }
}

/** The reader's and the limits' messages start with the file; a diagnostic names it apart. */
function withoutFile(file: string, message: string): string {
  return message.startsWith(`${file}: `) ? message.slice(file.length + 2) : message;
}
