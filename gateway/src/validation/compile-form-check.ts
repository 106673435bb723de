import {
  isRestbusError,
  type IncomingRequest,
  type InputCompilers,
  type RequestProblem as Problem,
} from '@restbus/infra';
import type { ApiEncoding } from '@restbus/openapi';
import { MAX_QUERY_PARAMETERS, parseQuery } from '../http/parse-query';
import { compileJsonParts } from './compile-json-parts';
import { matchesMediaRange, mediaTypeOf } from './matches-media-range';
import { readStyledValue } from './read-styled-value';
import { pointer, toBodyProblems } from './to-body-problems';

/** The media type of an HTML form's body: `a=1&b=x`, read as a query string is. */
export const FORM_TYPE = 'application/x-www-form-urlencoded';

/** The media type of a form with files: one part per field. */
export const MULTIPART_TYPE = 'multipart/form-data';

/** What is wrong with a form body (its fields named as a JSON body's properties are); empty when it matches. */
export type FormCheck = (request: IncomingRequest) => Promise<Problem[]>;

type FormSchema = object | boolean;

/** What a form check reads of an operation: its form media types' schemas and encodings (@restbus/openapi's model). */
export interface FormOperation {
  requestBody?: {
    content: Readonly<Record<string, { schema?: FormSchema; encoding?: Readonly<Record<string, ApiEncoding>> }>>;
  };
}

const propertiesOf = (schema: unknown): Record<string, unknown> => {
  const properties = (schema as { properties?: unknown } | null)?.properties;
  return typeof properties === 'object' && properties !== null ? (properties as Record<string, unknown>) : {};
};

const isFile = (value: unknown): boolean => (value as { type?: unknown } | null)?.type === 'file';

/** A form schema with some properties' schemas replaced (`{}` takes any value), the rest as it was. */
function replaceProperties(schema: FormSchema, replace: (name: string, value: unknown) => unknown): FormSchema {
  const properties = propertiesOf(schema);
  const entries = Object.entries(properties).map(([name, value]) => [name, replace(name, value)] as const);
  if (entries.every(([name, value]) => value === properties[name])) return schema;
  return { ...(schema as object), properties: Object.fromEntries(entries) };
}

/**
 * Swagger 2's `type: file` (a formData parameter) is no JSON Schema type: ajv refuses to compile it. A file is any
 * part, so it is checked as any value is.
 */
const acceptFiles = (schema: FormSchema): FormSchema =>
  replaceProperties(schema, (_name, value) => (isFile(value) ? {} : value));

function findFormMedia(operation: FormOperation, type: string) {
  const content = operation.requestBody?.content ?? {};
  const key = Object.keys(content).find((name) => mediaTypeOf(name) === type);
  return key === undefined ? undefined : content[key];
}

/** The schema of an operation's body of a form type (OpenAPI 2.0's `formData` parameters arrive as one), if any. */
export function findFormSchema(operation: FormOperation, type: string = FORM_TYPE): FormSchema | undefined {
  const schema = findFormMedia(operation, type)?.schema;
  return schema === undefined ? undefined : acceptFiles(schema);
}

const TOO_MANY_FIELDS: Problem = { location: 'body', message: `has more than ${MAX_QUERY_PARAMETERS} fields` };

/**
 * A form body read: its fields and the media types of its file parts by name, or the one problem that kept it from
 * being read.
 */
type Read = { fields: Record<string, unknown>; partTypes: Record<string, string[]> } | { problem: Problem };

/** The fields of a URL-encoded body, read as the query is; a problem when there are too many. */
async function readUrlencoded(request: IncomingRequest): Promise<Read> {
  if (request.bodyEncoding === 'base64') return { problem: { location: 'body', message: 'is not URL-encoded text' } };
  try {
    return { fields: parseQuery(request.body), partTypes: {} };
  } catch (err) {
    if (!isRestbusError(err)) throw err;
    return { problem: TOO_MANY_FIELDS };
  }
}

/**
 * The fields of a multipart body, each part's content as text (a file's too: its schema can only ask for a string),
 * a repeated name a list; a problem when it does not parse or has too many parts. The body is bounded by the
 * gateway's body limit before it gets here; Node's own parser (fetch's Response) reads it. It keeps the media type
 * of a part sent with a file name only: any other part is text to it.
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
  const partTypes: Record<string, string[]> = Object.create(null) as Record<string, string[]>;
  let count = 0;
  for (const [name, part] of parts) {
    if (++count > MAX_QUERY_PARAMETERS) return { problem: TOO_MANY_FIELDS };
    const value = typeof part === 'string' ? part : await part.text();
    if (typeof part !== 'string' && part.type !== '') (partTypes[name] ??= []).push(part.type);
    const known = fields[name];
    fields[name] = known === undefined ? value : Array.isArray(known) ? [...known, value] : [known, value];
  }
  return { fields, partTypes };
}

const READERS = { [FORM_TYPE]: readUrlencoded, [MULTIPART_TYPE]: readMultipart };

const texts = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/** A field cut into more items than a form may have fields: the one problem of its form. */
const tooManyItems = (name: string): Problem => ({
  location: `body${pointer(name)}`,
  message: `has more than ${MAX_QUERY_PARAMETERS} items`,
});

/**
 * Compiles the check of one form media type: its fields as their encodings write them (URL-encoded `style`/`explode`,
 * 2.0's `allowEmptyValue`; multipart parts' `contentType`, JSON parts parsed), then against its schema.
 */
function compileMediaCheck(
  type: typeof FORM_TYPE | typeof MULTIPART_TYPE,
  schema: FormSchema,
  encodings: Readonly<Record<string, ApiEncoding>>,
  compilers: InputCompilers,
): (request: IncomingRequest) => Promise<Problem[]> {
  const properties = propertiesOf(schema);
  const jsonParts = type === MULTIPART_TYPE ? compileJsonParts(properties, encodings, compilers) : undefined;
  // The text fields are coerced as query parameters are; a JSON part is parsed and checked on its own (jsonParts).
  const validate = compilers.params.compile(
    replaceProperties(acceptFiles(schema), (name, value) => (jsonParts?.names.has(name) ? {} : value)),
  );
  const encoded = Object.entries(encodings);
  return async (request) => {
    const read = await READERS[type](request);
    if ('problem' in read) return [read.problem];
    const { fields, partTypes } = read;
    let problems: Problem[] = [];
    for (const [name, encoding] of encoded) {
      if (fields[name] === undefined) continue;
      // Swagger 2: a formData field may be sent empty (`name=`) only with allowEmptyValue; a file is its content.
      if (encoding.allowEmptyValue === false && !isFile(properties[name]) && texts(fields[name]).includes('')) {
        problems.push({ location: `body${pointer(name)}`, message: 'must not be empty' });
      }
      if (type === FORM_TYPE) {
        fields[name] = readStyledValue(fields[name], properties[name], encoding);
        // `ids=1,2,…` is as many values as fields: bounded as fields are, or a megabyte is 500,000 items to check.
        const styled = fields[name];
        if (Array.isArray(styled) && styled.length > MAX_QUERY_PARAMETERS) return [tooManyItems(name)];
      }
      const allowed = type === MULTIPART_TYPE ? encoding.contentType : undefined;
      const wrong = (partTypes[name] ?? []).filter((partType) => allowed && !matchesMediaRange(partType, allowed));
      if (allowed && wrong.length > 0) {
        problems.push({ location: `body${pointer(name)}`, message: `must be sent as ${allowed}, not ${wrong[0]}` });
      }
    }
    if (jsonParts) problems = problems.concat(jsonParts.check(fields));
    if (!validate(fields)) problems = problems.concat(toBodyProblems(validate.errors));
    return problems;
  };
}

/**
 * Compiles the check of an operation's form bodies (`application/x-www-form-urlencoded`, `multipart/form-data`)
 * against their media types' schemas, undefined when it has neither. The fields are read as the query is (a
 * repeated name is a list, at most 1000 fields), as their encodings say (compileMediaCheck), and coerced by the same
 * compilers as query parameters ("7" is the 7 an integer property asks for, one value is a list of one): one
 * reading of form text for the query and the body. Throws what ajv throws on a schema it cannot compile.
 */
export function compileFormCheck(operation: FormOperation, compilers: InputCompilers): FormCheck | undefined {
  const checks = new Map<string, (request: IncomingRequest) => Promise<Problem[]>>();
  for (const type of [FORM_TYPE, MULTIPART_TYPE] as const) {
    const media = findFormMedia(operation, type);
    if (media?.schema !== undefined) {
      checks.set(type, compileMediaCheck(type, media.schema, media.encoding ?? {}, compilers));
    }
  }
  if (checks.size === 0) return undefined;
  return async (request) => {
    const check = checks.get(mediaTypeOf(request.headers['content-type']));
    // An empty body is the whole input check's to judge (required or not); another type is not a form.
    if (request.body === '' || check === undefined) return [];
    return check(request);
  };
}
