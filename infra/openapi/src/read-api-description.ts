import { topicPrefixSetting } from '@restbus/infra';
import type { ApiModel } from './api-model';
import { buildApiModel } from './build-api-model';
import { checkOfficialSchema } from './check-official-schema';
import { detectDialect } from './detect-dialect';
import { formatPath, type Diagnostic } from './diagnostic';
import { LOAD_LIMITS } from './load-limits';
import { parseApiFile, type ParseOptions } from './parse-api-file';
import { readExternalExamples } from './read-external-examples';
import type { SourceFile } from './read-source-file';

export interface ReadOptions extends ParseOptions {
  /** The first tokens of every operation's subject (`--topicPrefix`); `easer` when absent. */
  topicPrefix?: string;
  /** Warnings about the file's text (the gateway's Spectral rules): passed in, as not every reader wants them. */
  lint?: (source: SourceFile) => Promise<Diagnostic[]>;
  /**
   * Check the document against the official schema of its dialect, each problem an error (see checkOfficialSchema),
   * when it was read without errors.
   */
  checkSchema?: boolean;
}

export interface ApiDescription {
  /** The typed model; absent when the file could not be read or is no API description. */
  model?: ApiModel;
  /**
   * The dereferenced document, for what still reads raw OpenAPI on its way to the model (present with the model).
   * A cycle's `$ref`s are left in it and point into it.
   */
  document?: Record<string, unknown>;
  /** The API file's text, to place later diagnostics at a line. */
  source?: SourceFile;
  /**
   * Every problem found, errors and warnings, in the order found. The model is built despite errors where the
   * document could be read (an operation's `$ref` that fails, say): what to do with an error is the caller's.
   */
  diagnostics: Diagnostic[];
  /**
   * Every file read, as absolute paths: the API file, the files its `$refs` named, and its examples' `externalValue`
   * files (a tool that writes code from the description says which it read).
   */
  files: readonly string[];
}

/**
 * Reads one API description: the file and the local files its `$refs` name, within the limits (see parseApiFile),
 * linted when a linter is given, its dialect detected, checked against the official schema when asked, and its
 * typed model built. Never throws for the document's problems: each is a diagnostic with file, line and path.
 */
export async function readApiDescription(file: string, options: ReadOptions = {}): Promise<ApiDescription> {
  const parsed = await parseApiFile(file, options);
  const diagnostics = [...parsed.diagnostics];
  const { document, source } = parsed;
  if (!document) return { diagnostics, files: parsed.files };
  if (source && options.lint) diagnostics.push(...(await options.lint(source)));
  const error = (path: Array<string | number>, message: string): void => {
    diagnostics.push({ severity: 'error', file, ...source?.locate(path), path: formatPath(path), message });
  };
  const dialect = detectDialect(document);
  if (!dialect) {
    error([], 'not an API description restbus reads: it needs openapi: 3.0.x or 3.1.x, or swagger: "2.0"');
    return { source, diagnostics, files: parsed.files };
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
  // A `$ref` that failed is null in the document: the schema would only say so again, less clearly.
  const failed = diagnostics.some(({ severity }) => severity === 'error');
  if (options.checkSchema && !failed) diagnostics.push(...checkOfficialSchema(document, dialect, file, source));
  const topicPrefix = options.topicPrefix ?? String(topicPrefixSetting.schema.default);
  const external = await readExternalExamples({
    file,
    document,
    source,
    allowOutsideRefs: options.allowOutsideRefs === true,
    limits: options.limits ?? LOAD_LIMITS,
  });
  diagnostics.push(...external.diagnostics);
  const model = buildApiModel(document, { file, dialect, topicPrefix, externalValues: external.values });
  return { model, document, source, diagnostics, files: [...parsed.files, ...external.files] };
}
