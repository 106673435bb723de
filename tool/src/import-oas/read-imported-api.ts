import { escapeControlCharacters, readApiDescription, type Diagnostic } from '@restbus/openapi';
import { RestbusError } from '@restbus/infra';
import type { OpenApiFile } from './plan-import';

export interface ImportedApi {
  api: OpenApiFile;
  /** What reading found that does not stop the import (a `$ref` no operation uses), one line each. */
  warnings: string[];
}

/**
 * Reads the file through @restbus/openapi, as the gateway reads it (local files only, within its limits, a `$ref`
 * to a URL refused and never fetched), and checks it against the official schema of its dialect: an import
 * refuses what does not follow the specification. Any error is one OPENAPI_INVALID line naming the file.
 */
/**
 * The reader names the files it read by absolute path: the API file as the user gave it, the others as `show`
 * names them (relative to the current folder), so that no message names the folder the tool runs in.
 */
function showPaths(message: string, file: string, shown: string, show: (path: string) => string): string {
  return message.replace(/(?<=^|[\s('"])\/[^\s'"()]+/g, (found) => {
    const path = found.replace(/[:,.]+$/, '');
    return (path === file ? shown : show(path)) + found.slice(path.length);
  });
}

export async function readImportedApi(
  file: string,
  shown: string,
  show: (path: string) => string = (path) => path,
): Promise<ImportedApi> {
  // Folders are the user's to choose here: a `$ref` to a shared folder beside the API is common.
  const { model, document, diagnostics } = await readApiDescription(file, {
    allowOutsideRefs: true,
    checkSchema: true,
  });
  /** `api.yaml:7: paths./a.get: …`, the file as the user gave it (the others as `show` names them). */
  const describe = (diagnostic: Diagnostic): string => {
    const name = diagnostic.file === file ? shown : show(diagnostic.file);
    const where = diagnostic.line === undefined ? name : `${name}:${diagnostic.line}`;
    const message = showPaths(diagnostic.message, file, shown, show);
    const what = diagnostic.path === '' ? message : `${diagnostic.path}: ${message}`;
    return escapeControlCharacters(`${where}: ${what}`);
  };
  const errors = diagnostics.filter(({ severity }) => severity === 'error');
  if (errors.length > 0 || !model || !document) {
    const more = errors.length > 1 ? ` (and ${errors.length - 1} more error${errors.length > 2 ? 's' : ''})` : '';
    const first = errors[0] ? describe(errors[0]) : `${shown}: not an API description`;
    throw new RestbusError('OPENAPI_INVALID', `${first}${more}`);
  }
  const version = model.dialect === '2.0' ? 'Swagger 2.0' : `OpenAPI ${String(document.openapi)}`;
  return {
    api: { model, document, dialect: model.dialect, version },
    warnings: diagnostics.map(describe),
  };
}
