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

/**
 * C0 and C1 controls, DEL, the Unicode line and paragraph separators and the bidirectional overrides: what would
 * move a terminal's cursor, recolour it, end a log line or reorder what a person reads.
 */
// eslint-disable-next-line no-control-regex -- control characters are what is looked for
const CONTROL = /[\u0000-\u001f\u007f-\u009f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;
const SHORT_ESCAPES: Readonly<Record<string, string>> = { '\n': '\\n', '\r': '\\r', '\t': '\\t' };

/** `a\u0007b` for a, BEL, b: a document's keys and texts are printed as they are written, never interpreted. */
export function escapeControlCharacters(text: string): string {
  return text.replace(
    CONTROL,
    (character) => SHORT_ESCAPES[character] ?? `\\u${character.charCodeAt(0).toString(16).padStart(4, '0')}`,
  );
}

/** The diagnostic with every text escaped (see escapeControlCharacters), as it is printed and logged. */
export function toPrintable(diagnostic: Diagnostic): Diagnostic {
  return {
    ...diagnostic,
    file: escapeControlCharacters(diagnostic.file),
    path: escapeControlCharacters(diagnostic.path),
    message: escapeControlCharacters(diagnostic.message),
  };
}

/** `file:line:col  warning  paths./pets.get.responses.200: missing required "description"`, one line. */
export function formatDiagnostic(diagnostic: Diagnostic): string {
  const where =
    diagnostic.line === undefined ? diagnostic.file : `${diagnostic.file}:${diagnostic.line}:${diagnostic.column ?? 1}`;
  const what = diagnostic.path === '' ? diagnostic.message : `${diagnostic.path}: ${diagnostic.message}`;
  return escapeControlCharacters(`${where}  ${diagnostic.severity}  ${what}`);
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
