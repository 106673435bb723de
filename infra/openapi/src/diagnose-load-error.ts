import { resolve } from 'node:path';
import { formatPath, type Diagnostic } from './diagnostic';

/** What the `$ref` parser throws or collects: a message, a code, where the `$ref` or the syntax error is. */
export interface ParserFailure {
  message: string;
  /** The parser's code (`EPARSER`, `ERESOLVER`, …), or TOO_DEEP. */
  code?: string;
  /** Where the `$ref` that failed is written, in the document from its root. */
  path?: Array<string | number>;
  /** The file the failure is in. */
  source?: string;
  /** The code of the error a resolver threw (the parser wraps it): see REMOTE_REF. */
  ioErrorCode?: string;
}

/** The code of a failure that nests too deeply for the parser's recursion. */
const TOO_DEEP = 'ETOODEEP';

const readString = (value: unknown): string | undefined => (typeof value === 'string' ? value : undefined);

/** What a thrown or collected failure says, read field by field: the parser types its errors loosely. */
export function readParserFailure(err: unknown): ParserFailure {
  if (typeof err !== 'object' || err === null) return { message: String(err) };
  const message = 'message' in err && err.message != null ? String(err.message) : String(err);
  // The parser recurses while resolving, before the nesting can be measured.
  if (err instanceof RangeError && /call stack/i.test(message)) return { message, code: TOO_DEEP };
  const path =
    'path' in err && Array.isArray(err.path)
      ? err.path.filter((key): key is string | number => typeof key === 'string' || typeof key === 'number')
      : undefined;
  return {
    message,
    ...('code' in err && { code: readString(err.code) }),
    ...(path && { path }),
    ...('source' in err && { source: readString(err.source) }),
    ...('ioErrorCode' in err && { ioErrorCode: readString(err.ioErrorCode) }),
  };
}

const firstLine = (message: string): string => message.split('\n')[0];

/**
 * One error diagnostic for what the parser reports: a syntax error with its line, an unresolvable `$ref`, … The one
 * place that reads the parser's errors: every reader of API descriptions gets its diagnostics from here.
 */
export function diagnoseLoadError(file: string, err: unknown): Diagnostic {
  const failure = readParserFailure(err);
  const { message } = failure;
  const at = (text: string): Diagnostic => ({
    severity: 'error',
    file,
    path: failure.path ? formatPath(failure.path) : '',
    message: text,
  });
  if (failure.code === TOO_DEEP) return at('nests too deeply to load (thousands of levels)');
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
