import { relative } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { formatDiagnostic, readApiDescription, type ApiModel, type Diagnostic } from '@restbus/openapi';

/** A document as the generator needs it: the model, and the document the types are rendered from. */
export interface ReadDocument {
  model: ApiModel;
  /** The dereferenced document (a cycle's `$ref`s left in, pointing into it), for openapi-typescript. */
  document: Record<string, unknown>;
  /** What reading found that does not stop the generator (a `$ref` no operation uses), one line each. */
  warnings: string[];
}

/**
 * Reads an OpenAPI 2.0/3.x file through @restbus/openapi, as the gateway reads it (local files only, a `$ref` to a
 * URL refused and never fetched, within its limits), checked against the official schema of its dialect: the
 * service is generated from the document the gateway will serve. Every error is one line at its file and line,
 * all of them in one OPENAPI_INVALID.
 */
export async function readModel(file: string, shown: string, cwd: string): Promise<ReadDocument> {
  // Folders are the user's to choose: a `$ref` to a shared folder beside the API is common.
  const { model, document, diagnostics } = await readApiDescription(file, {
    allowOutsideRefs: true,
    checkSchema: true,
  });
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
  return { model, document, warnings: diagnostics.map(describe) };
}
