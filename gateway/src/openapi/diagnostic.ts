/** A problem found in an API description: an error refuses the document, a warning is said and served past. */
export interface Diagnostic {
  severity: 'error' | 'warning';
  /** The file as given (`-r`) or the one a `$ref` led to. */
  file: string;
  /** 1-based, where the problem is; absent when it concerns the whole file (it cannot be read). */
  line?: number;
  column?: number;
  /** Where in the document, dotted (`paths./pets/{id}.get.responses.200`); empty for the document itself. */
  path: string;
  message: string;
}

/** `file:line:col  warning  paths./pets.get.responses.200: missing required "description"`, one line. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where =
    diagnostic.line === undefined ? diagnostic.file : `${diagnostic.file}:${diagnostic.line}:${diagnostic.column ?? 1}`;
  const what = diagnostic.path === '' ? diagnostic.message : `${diagnostic.path}: ${diagnostic.message}`;
  return `${where}  ${diagnostic.severity}  ${what.replace(/[\r\n]+/g, ' ')}`;
}

/** Joins a JSON path as the messages write it: keys with dots stay readable (`paths./v1.0/pets`). */
export function formatPath(path: ReadonlyArray<string | number>): string {
  return path.map(String).join('.');
}

/** "2 errors, 1 warning" */
export function countDiagnostics(diagnostics: readonly Diagnostic[]): string {
  const count = (severity: Diagnostic['severity']): string => {
    const n = diagnostics.filter((diagnostic) => diagnostic.severity === severity).length;
    return `${n} ${severity}${n === 1 ? '' : 's'}`;
  };
  return `${count('error')}, ${count('warning')}`;
}
