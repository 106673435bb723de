import type { ValidateFunction } from 'ajv';
import {
  isRestbusError,
  type IncomingRequest,
  type InputCompilers,
  type InputOperation,
  type RequestProblem as Problem,
} from '@restbus/infra';
import { MAX_QUERY_PARAMETERS, parseQuery } from '../http/parse-query';

/** The media type of an HTML form's body: `a=1&b=x`, read as a query string is. */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The media type of a form with files: one part per field. */
export const MULTIPART_TYPE = 'multipart/form-data';

/** What is wrong with a form body (its fields named as a JSON body's properties are); empty when it matches. */
export type FormCheck = (request: IncomingRequest) => Promise<Problem[]>;

type FormSchema = object | boolean;

const mediaTypeOf = (type: unknown): string =>
  String(type ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

/**
 * Swagger 2's `type: file` (a formData parameter) is no JSON Schema type: ajv refuses to compile it. A file is any
 * part, so it is checked as any value is.
 */
function acceptFiles(schema: FormSchema): FormSchema {
  const properties = (schema as { properties?: Record<string, unknown> }).properties;
  if (typeof properties !== 'object' || properties === null) return schema;
  const isFile = (value: unknown): boolean => (value as { type?: unknown } | null)?.type === 'file';
  if (!Object.values(properties).some(isFile)) return schema;
  return {
    ...(schema as object),
    properties: Object.fromEntries(
      Object.entries(properties).map(([name, value]) => [name, isFile(value) ? {} : value]),
    ),
  };
}

/** The schema of an operation's body of a form type (OpenAPI 2.0's `formData` parameters arrive as one), if any. */
export function findFormSchema(operation: InputOperation, type: string = FORM_TYPE): FormSchema | undefined {
  const content = operation.requestBody?.content ?? {};
  const key = Object.keys(content).find((name) => mediaTypeOf(name) === type);
  const schema = key === undefined ? undefined : content[key].schema;
  return schema === undefined ? undefined : acceptFiles(schema);
}

function toProblems(errors: ValidateFunction['errors']): Problem[] {
  return (errors ?? []).map((error) => ({
    location: `body${error.instancePath}`,
    message: error.message ?? 'is invalid',
  }));
}

const TOO_MANY_FIELDS: Problem = { location: 'body', message: `has more than ${MAX_QUERY_PARAMETERS} fields` };

/** A form body read: its fields, or the one problem that kept it from being read. */
type Read = { fields: Record<string, unknown> } | { problem: Problem };

/** The fields of a URL-encoded body, read as the query is; a problem when there are too many. */
async function readUrlencoded(request: IncomingRequest): Promise<Read> {
  if (request.bodyEncoding === 'base64') return { problem: { location: 'body', message: 'is not URL-encoded text' } };
  try {
    return { fields: parseQuery(request.body) };
  } catch (err) {
    if (!isRestbusError(err)) throw err;
    return { problem: TOO_MANY_FIELDS };
  }
}

/**
 * The fields of a multipart body, each part's content as text (a file's too: its schema can only ask for a string),
 * a repeated name a list; a problem when it does not parse or has too many parts. The body is bounded by the
 * gateway's body limit before it gets here; Node's own parser (fetch's Response) reads it.
 */
async function readMultipart(request: IncomingRequest): Promise<Read> {
  const bytes = Buffer.from(request.body, request.bodyEncoding === 'base64' ? 'base64' : 'utf8');
  let parts: FormData;
  try {
    const headers = { 'content-type': String(request.headers['content-type']) };
    parts = await new Response(bytes, { headers }).formData();
  } catch {
    return { problem: { location: 'body', message: `is not ${MULTIPART_TYPE}` } };
  }
  const fields: Record<string, unknown> = Object.create(null) as Record<string, unknown>;
  let count = 0;
  for (const [name, part] of parts) {
    if (++count > MAX_QUERY_PARAMETERS) return { problem: TOO_MANY_FIELDS };
    const value = typeof part === 'string' ? part : await part.text();
    const known = fields[name];
    fields[name] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value];
  }
  return { fields };
}

/**
 * Compiles the check of an operation's form bodies (`application/x-www-form-urlencoded`, `multipart/form-data`)
 * against their media types' schemas, undefined when it has neither. The fields are read as the query is (a
 * repeated name is a list, at most 1000 fields) and coerced by the same compilers as query parameters ("7" is the 7
 * an integer property asks for, one value is a list of one): one reading of form text for the query and the body.
 * Throws what ajv throws on a schema it cannot compile.
 */
export function compileFormCheck(operation: InputOperation, compilers: InputCompilers): FormCheck | undefined {
  const readers = { [FORM_TYPE]: readUrlencoded, [MULTIPART_TYPE]: readMultipart };
  const checks = new Map<string, ValidateFunction>();
  for (const type of [FORM_TYPE, MULTIPART_TYPE]) {
    const schema = findFormSchema(operation, type);
    if (schema !== undefined) checks.set(type, compilers.params.all.compile(schema));
  }
  if (checks.size === 0) return undefined;
  return async (request) => {
    const type = mediaTypeOf(request.headers['content-type']);
    const validate = checks.get(type);
    // An empty body is the whole input check's to judge (required or not); another type is not a form.
    if (request.body === '' || validate === undefined) return [];
    const read = await readers[type as keyof typeof readers](request);
    if ('problem' in read) return [read.problem];
    return validate(read.fields) ? [] : toProblems(validate.errors);
  };
}
