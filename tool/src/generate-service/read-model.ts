import { relative } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { checkRoutes, formatDiagnostic, readApiDescription, type ApiModel, type Diagnostic } from '@restbus/openapi';

/** A document as the generator needs it: the model, and the document the types are rendered from. */
export interface ReadDocument {
  model: ApiModel;
  /** The dereferenced document (a cycle's `$ref`s left in, pointing into it), for openapi-typescript. */
  document: Record<string, unknown>;
  /** What reading found that does not stop the generator (a `$ref` no operation uses), one line each. */
  warnings: string[];
  /** Every file read, relative to cwd: the document, the files its `$refs` named, its examples' files. */
  read: string[];
}

/**
 * Reads an OpenAPI 2.0/3.x file through @restbus/openapi, as the gateway reads it (local files only, inside the
 * file's folder unless `allowOutsideRefs`, a `$ref` to a URL refused and never fetched, within its limits), checked
 * against the official schema of its dialect and refusing what the gateway refuses to route (checkRoutes: a path or
 * subject that makes no NATS subject): the service is generated from the document the gateway will serve. Every
 * error is one line at its file and line, all of them in one OPENAPI_INVALID.
 */
export async function readModel(
  file: string,
  shown: string,
  cwd: string,
  options: { allowOutsideRefs?: boolean } = {},
): Promise<ReadDocument> {
  const description = await readApiDescription(file, {
    allowOutsideRefs: options.allowOutsideRefs === true,
    checkSchema: true,
  });
  const { model, document } = description;
  const diagnostics = [...description.diagnostics, ...checkRoutes(description).diagnostics];
  // The reader names files by absolute path: the API file is named as the user gave it, the others from cwd.
  const describe = (diagnostic: Diagnostic): string =>
    formatDiagnostic({
      ...diagnostic,
      file: diagnostic.file === file ? shown : relative(cwd, diagnostic.file),
      message: diagnostic.message.split(file).join(shown).split(`${cwd}/`).join(''),
    });
  const errors = diagnostics.filter(({ severity }) => severity === 'error');
  if (errors.length > 0 || !model || !document) {
    const lines = errors.length > 0 ? errors.map(describe) : [`${shown}: not an API description`];
    throw new RestbusError('OPENAPI_INVALID', lines.join('\n'));
  }
  const read = description.files.map((path) => relative(cwd, path).split('\\').join('/'));
  return { model, document, warnings: diagnostics.map(describe), read };
}
