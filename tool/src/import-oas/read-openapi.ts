import { resolve } from 'node:path';
import SwaggerParser from '@apidevtools/swagger-parser';
import { RestbusError } from '@restbus/infra';

export type Json = Record<string, unknown>;

/** The OpenAPI versions the import reads: their schemas (2.0, 3.0) or JSON Schema 2020-12 (3.1) differ. */
export type Dialect = '2.0' | '3.0' | '3.1';

export interface OpenApiFile {
  /** The document with every external `$ref` pulled in (bundled): what is left are `#/…` pointers into it. */
  document: Json;
  dialect: Dialect;
  /** `Swagger 2.0`, `OpenAPI 3.0.3`…: for messages. */
  version: string;
}

interface ParserFailure {
  message?: string;
  code?: string;
  details?: Array<{ instancePath?: string; message?: string }>;
}

const NOT_AN_API = 'not a Swagger 2.0 or OpenAPI 3.0/3.1 document';

/**
 * The parser's resolvers: its HTTP one off, and one that takes every URL with a scheme other than `file:` (however
 * spelled: `HTTP:`, `//host`, `\\host` reach here resolved to `http(s):`) and refuses it, so that nothing an
 * imported file names is ever fetched. Local files are read by the parser's own file resolver.
 */
const LOCAL_ONLY: SwaggerParser.Options = {
  resolve: {
    http: false,
    refuseUrls: {
      order: 1,
      canRead: ({ url }: { url: string }) => isRemoteUrl(url),
      read({ url }: { url: string }): never {
        throw new Error(describeUrlRef(url));
      },
    },
  },
};

/** A scheme other than `file:` (two letters at least: a Windows drive letter is a path). */
function isRemoteUrl(url: string): boolean {
  return /^[a-z][a-z\d+.-]+:/i.test(url) && !/^file:/i.test(url);
}

const describeUrlRef = (url: string): string =>
  `${url} is a URL: rest-tool reads $refs only from local files, never over the network`;

/** What swagger-parser threw, as one line that names the file as the user gave it (and the others by `show`). */
function describeFailure(file: string, shown: string, err: unknown, show: (path: string) => string): string {
  const failure = (err ?? {}) as ParserFailure;
  const absolute = resolve(file);
  const message = String(failure.message ?? err)
    .split(absolute)
    .join(shown);
  const firstLine = message.split('\n')[0].trim();
  if (err instanceof RangeError && /call stack/i.test(message)) return `${shown}: nests too deeply to read`;
  if (failure.code === 'EPARSER') {
    // "Error parsing <file>: <reason> (<line>:<column>)"
    const parsed = /^Error parsing (.*?): (.*?)(?: \((\d+):(\d+)\))?$/m.exec(message);
    if (parsed) {
      const where = parsed[1] === shown || !parsed[3] ? shown : show(parsed[1]);
      return `${where}${parsed[3] ? `:${parsed[3]}` : ''}: not valid YAML or JSON: ${parsed[2]}`;
    }
    return `${shown}: not valid YAML or JSON: ${firstLine}`;
  }
  if (failure.code === 'ERESOLVER') {
    const opening = /^Error opening file (.*?): (\w+): /.exec(firstLine);
    if (opening && opening[1] === shown) {
      const reason = { ENOENT: 'no such file', EISDIR: 'a folder, not a file', EACCES: 'permission denied' }[
        opening[2]
      ];
      return `${shown}: cannot read it: ${reason ?? firstLine}`;
    }
    // The parser keeps only the URL of what a resolver refused.
    const unread = /^Error reading file "(.*)"$/.exec(firstLine);
    if (unread && isRemoteUrl(unread[1])) return `${shown}: cannot resolve a $ref: ${describeUrlRef(unread[1])}`;
    const reason = opening ? firstLine.split(opening[1]).join(show(opening[1])) : firstLine;
    return `${shown}: cannot resolve a $ref: ${reason}`;
  }
  if (failure.code === 'EMISSINGPOINTER' || failure.code === 'EUNMATCHEDRESOLVER') {
    return `${shown}: cannot resolve a $ref: ${firstLine}`;
  }
  if (Array.isArray(failure.details) && failure.details.length > 0) {
    const problems = failure.details.map((detail) => {
      const pointer = (detail.instancePath ?? '').replace(/~1/g, '/').replace(/~0/g, '~') || '/';
      return `${pointer}: ${detail.message ?? 'is invalid'}`;
    });
    return `${shown}: not a valid OpenAPI document: ${[...new Set(problems)].join('; ')}`;
  }
  if (/is not a valid (\w+ API definition|JSON Schema)/.test(firstLine)) return `${shown}: ${NOT_AN_API}`;
  return `${shown}: not a valid OpenAPI document: ${message.split('\n').join(' ').replace(/\s+/g, ' ').trim()}`;
}

/**
 * Reads a Swagger 2.0 or OpenAPI 3.0/3.1 file (YAML or JSON), pulls in the local files its `$ref`s name (a `$ref`
 * to a URL is refused, never fetched), and validates it against the official schemas, as the gateway does. Any
 * problem is one OPENAPI_INVALID line naming the file.
 */
export async function readOpenApi(
  file: string,
  shown: string,
  show: (path: string) => string = (path) => path,
): Promise<OpenApiFile> {
  let document: Json;
  try {
    document = (await SwaggerParser.bundle(file, LOCAL_ONLY)) as unknown as Json;
    if (!document || typeof document !== 'object' || Array.isArray(document)) {
      throw new RestbusError('OPENAPI_INVALID', `${shown}: ${NOT_AN_API}`);
    }
    // validate() dereferences what it is given: a copy, so that the document keeps its `$ref`s (and its cycles
    // stay pointers rather than becoming circular objects).
    await SwaggerParser.validate(structuredClone(document) as never, {
      ...LOCAL_ONLY,
      dereference: { circular: 'ignore' },
    });
  } catch (err) {
    if (err instanceof RestbusError) throw err;
    throw new RestbusError('OPENAPI_INVALID', describeFailure(file, shown, err, show), { cause: err });
  }
  if (document.swagger === '2.0') return { document, dialect: '2.0', version: 'Swagger 2.0' };
  const openapi = String(document.openapi);
  return { document, dialect: openapi.startsWith('3.1') ? '3.1' : '3.0', version: `OpenAPI ${openapi}` };
}
