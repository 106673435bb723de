import { resolve } from 'node:path';
import { $RefParser } from '@apidevtools/json-schema-ref-parser';
import { RestbusError } from '@restbus/infra';
import { assertBoundedExpansion, type RefTarget } from './assert-bounded-expansion';
import { createApiFileReader } from './create-api-file-reader';
import { diagnoseLoadError, type ParserFailure } from './diagnose-load-error';
import type { Diagnostic } from './diagnostic';
import { LOAD_LIMITS, type LoadLimits } from './load-limits';
import { readSourceFile, type SourceFile } from './read-source-file';
import { valueAt } from './value-at';

type Json = Record<string, unknown>;

export interface ParseOptions {
  /** Let `$refs` read local files outside the API file's folder (`--allowOutsideRefs`). */
  allowOutsideRefs?: boolean;
  limits?: Readonly<LoadLimits>;
}

export interface ParsedApiFile {
  /** The dereferenced document (a cycle's `$refs` left in place); absent when the file could not be read at all. */
  document?: Json;
  /** The API file's own text, for the linter and for source positions. */
  source?: SourceFile;
  /** What could not be read or resolved: errors, and warnings for `$refs` no operation reaches. */
  diagnostics: Diagnostic[];
}

/** The parts of the parser's `$refs` registry the measuring needs (typed loosely by the parser). */
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

/** Whether any operation reaches `target` (an object of the dereferenced document), cycles followed once. */
function reachesFromOperations(document: Json, target: object): boolean {
  const seen = new Set<object>();
  const stack: unknown[] = Object.values((document.paths as Json | undefined) ?? {});
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
 * Reads the API file and the files its `$refs` name (within the limits, inside its folder unless allowed),
 * measures the expansion between resolving and dereferencing (the parser's dereferencing walks the document
 * fully expanded, which repeated `$refs` make exponential), and dereferences it, collecting what fails instead of
 * stopping at the first. An unresolvable `$ref` is an error when an operation reaches it, a warning otherwise.
 */
export async function parseApiFile(file: string, options: ParseOptions = {}): Promise<ParsedApiFile> {
  const limits = options.limits ?? LOAD_LIMITS;
  const reader = createApiFileReader({ file, allowOutsideRefs: options.allowOutsideRefs === true, limits });
  let text: string | undefined;
  const parser = new $RefParser();
  const resolveAll = parser.resolve.bind(parser) as (...args: unknown[]) => Promise<unknown>;
  // dereference() resolves through this.resolve: an own property puts the measuring between the two steps.
  Object.assign(parser, {
    async resolve(...args: unknown[]) {
      const refs = (await resolveAll(...args)) as RefRegistry;
      const parserOptions = args[2];
      assertBoundedExpansion({
        file,
        document: parser.schema,
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
  const read = async ({ url }: { url: string }): Promise<Buffer> => {
    const bytes = await reader.read(url);
    // The parser reads the API file first, then the files its `$refs` name.
    text ??= bytes.toString('utf8');
    return bytes;
  };
  let failures: ParserFailure[] = [];
  try {
    await parser.dereference(file, {
      continueOnError: true,
      dereference: { circular: 'ignore' },
      resolve: { file: { read } },
    });
  } catch (err) {
    const refused = reader.refusal() ?? (err instanceof RestbusError ? err : undefined);
    if (refused)
      return { diagnostics: [{ severity: 'error', file, path: '', message: withoutFile(file, refused.message) }] };
    failures = Array.isArray((err as { errors?: unknown }).errors)
      ? (err as { errors: ParserFailure[] }).errors
      : [err as ParserFailure];
  }
  const document = parser.schema as Json | null;
  if (failures.length > 0 && (!document || typeof document !== 'object')) {
    return { diagnostics: failures.map((failure) => diagnoseLoadError(file, failure)) };
  }
  if (!document || typeof document !== 'object' || Array.isArray(document)) {
    // An empty file, a scalar or a list parses without complaint, and describes nothing.
    const message = 'not an API description: the file holds no mapping of OpenAPI fields';
    return { diagnostics: [{ severity: 'error', file, line: 1, column: 1, path: '', message }] };
  }
  let source: SourceFile | undefined;
  try {
    source = text === undefined ? undefined : readSourceFile(file, text);
  } catch (err) {
    // The position parser is another YAML parser than the loader's: what it cannot read still loads, unlocated.
    failures.push({ code: 'ENOSOURCE', message: `has no line numbers or warnings: ${(err as Error).message}` });
  }
  const diagnostics = withoutRepeats(failures).map((failure): Diagnostic => {
    const diagnostic = diagnoseLoadError(file, failure);
    const position =
      diagnostic.line === undefined && failure.path && isRootFile(file, failure.source)
        ? source?.locate(failure.path)
        : undefined;
    // A `$ref` that failed is null in the document: an operation reaching the object that holds it cannot be built.
    const holder = failure.path && failure.path.length > 0 ? valueAt(document, failure.path.slice(0, -1)) : undefined;
    const needed = typeof holder !== 'object' || holder === null || reachesFromOperations(document, holder);
    return {
      ...diagnostic,
      ...position,
      ...(!needed && { severity: 'warning', message: `${diagnostic.message} (no operation uses it)` }),
    };
  });
  return { document, source, diagnostics };
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
