import { resolve } from 'node:path';
import { formatPath, type Diagnostic } from './diagnostic';

/** What the `$ref` parser throws or collects: a message, a code, where the `$ref` or the syntax error is. */
export interface ParserFailure {
  message?: string;
  code?: string;
  /** Where the `$ref` that failed is written, in the document from its root. */
  path?: Array<string | number>;
  /** The file the failure is in. */
  source?: string;
  /** The code of the error a resolver threw (the parser wraps it): see REMOTE_REF. */
  ioErrorCode?: string;
}

const firstLine = (message: string): string => message.split('\n')[0];

/**
 * One error diagnostic for what the parser reports: a syntax error with its line, an unresolvable `$ref`, … The one
 * place that reads the parser's errors: every reader of API descriptions gets its diagnostics from here.
 */
export function diagnoseLoadError(file: string, err: unknown): Diagnostic {
  const failure = (err ?? {}) as ParserFailure;
  const message = String(failure.message ?? err);
  const at = (text: string): Diagnostic => ({
    severity: 'error',
    file,
    path: failure.path ? formatPath(failure.path) : '',
    message: text,
  });
  if (err instanceof RangeError && /call stack/i.test(message)) {
    // The parser recurses while resolving, before the nesting can be measured.
    return at('nests too deeply to load (thousands of levels)');
  }
  if (failure.code === 'EPARSER') {
    // "Error parsing <file>: <reason> (<line>:<column>)\n<excerpt>"
    const parsed = /^Error parsing (.*?): (.*?)(?: \((\d+):(\d+)\))?$/m.exec(message);
    return {
      severity: 'error',
      file: parsed?.[1] && resolve(parsed[1]) !== resolve(file) ? parsed[1] : file,
      ...(parsed?.[3] && { line: Number(parsed[3]), column: Number(parsed[4]) }),
      path: '',
      message: `not valid YAML or JSON: ${parsed?.[2] ?? firstLine(message)}`,
    };
  }
  if (failure.code === 'ERESOLVER') {
    const notFound = /^Error opening file (.*?): ENOENT/.exec(message);
    if (notFound && resolve(notFound[1]) === resolve(file)) return at('cannot read the API description: no such file');
    return at(`cannot resolve a $ref: ${firstLine(message)}`);
  }
  if (failure.code === 'ENOSOURCE') return { ...at(firstLine(message)), severity: 'warning' };
  if (failure.code === 'EMISSINGPOINTER') return at(`cannot resolve a $ref: ${firstLine(message)}`);
  return at(firstLine(message).trim() || 'cannot be read');
}
