import type { ValidateFunction } from 'ajv';
import addFormats from 'ajv-formats';
import {
  adaptOpenApiSchema,
  createSchemaCompilers,
  defaultContentType,
  findAmbiguousJson,
  findSchemaErrors,
  isJsonMediaType,
  isNestedDeeperThan,
  JSON_SLICE_LENGTH,
  MAX_JSON_DEPTH,
  MAX_LISTED_PROBLEMS,
  parseJsonInSlices,
  type JsonAmbiguity,
  type HeaderValue,
  type ResponseMessage,
  type SchemaCompilers,
  type ValidatorPair,
} from '@restbus/infra';
import type { ApiModel, ApiResponse, JsonSchema } from '@restbus/openapi';
import type { ReplyUse } from '../forward/create-forwarder';
import type { ApiEndpoint } from '../openapi/endpoint';
import { countExpandedNodes } from '../validation/count-expanded-nodes';
import { inspectBodyValue } from './inspect-body-value';
import type { ReplyViolation } from './reply-violation';
import { toViolations } from './to-violations';

/** The most schema nodes one response schema may compile to (as --validate's bound for requests). */
export const MAX_CHECKED_NODES = 20_000;

/**
 * The most work an all-errors pass may take, as the body's text length times its schema's nodes: each node of the
 * body fails each of the schema's nodes at most about once. The pass lists every error of a body up to
 * LISTED_TEXT_LENGTH (64 KiB) against a schema of up to 15 nodes, of 14 KiB against 70 (a list of persons), of
 * 1 KiB against 1,000; of a larger body the first error only, found by the first-error pass that runs anyway. Within
 * 64 KiB, a 7-branch `oneOf` missed by 20,000 items `{}` made 500,000 errors: seconds of the loop for every client.
 */
export const MAX_LISTED_WORK = 1_000_000;

/** The check of one operation's replies, compiled once when the API loads. */
export interface ReplyChecker {
  /**
   * What is wrong with a reply (none when it matches): at most MAX_LISTED_PROBLEMS violations, every one of a JSON
   * body up to LISTED_TEXT_LENGTH, the first of a larger one. A body it cannot read is a violation, not a pass.
   * `stream`: the reply opens a stream operation's stream, so a 2xx one is its first event (see checkFirstEvent).
   */
  check(reply: ResponseMessage, use?: ReplyUse): Promise<ReplyViolation[]>;
  /** What is wrong with a JSON value as a body of `status` in `mediaType` (an example written in the document). */
  checkValue(status: string, mediaType: string, value: unknown): ReplyViolation[];
}

interface CompiledHeader {
  name: string;
  required: boolean;
  validate?: ValidateFunction;
}

interface CompiledMedia {
  type: string;
  validate?: ValidatorPair<ValidateFunction>;
  /** The longest body whose every error is listed (MAX_LISTED_WORK); a longer one's first error only. */
  listedLength?: number;
  /**
   * The last bodies found valid that came as bytes, oldest first, at most REMEMBERED_BODIES of them and
   * REMEMBERED_BODY_BYTES in all: a service that keeps the encoded form of what it serves (a list, or the pages of
   * one, that have not changed) sends the same bytes again, and comparing them (under a microsecond for 9 KB) is
   * what checking them again would conclude, without the parse (about 80 % of a check: 40 µs for a 100-person page).
   */
  remembered: RememberedBody[];
}

/** A copy of a valid body: its first `length` bytes of a buffer written over when it is the oldest. */
interface RememberedBody {
  buffer: Buffer;
  length: number;
}

/** How many valid bodies are remembered per media type of a response: pages that alternate, or a few in turn. */
export const REMEMBERED_BODIES = 4;

/** The bytes remembered as valid per media type of an operation's response, in all: memory stays bounded. */
export const REMEMBERED_BODY_BYTES = 64 * 1024;

interface CompiledResponse {
  source: ApiResponse;
  headers: CompiledHeader[];
  /** Media types as declared (lower case) with the body's validators (JSON types with a schema). */
  media: CompiledMedia[];
}

interface Compilers {
  body: SchemaCompilers;
  header: SchemaCompilers['all'];
}

const SCALAR_TYPES = new Set(['string', 'integer', 'number', 'boolean']);

// As --validate compiles requests (linear patterns and uniqueItems), with formats checked: a reply is the service's
// word, and a date that is no date is what a client breaks on. Unknown formats pass unsaid.
const withFormats = (ajv: Parameters<typeof addFormats>[0]): unknown => addFormats(ajv, { keywords: false });

function createCompilers(dialect: '3.0' | '3.1'): Compilers {
  const options = { addFormats: withFormats, verbose: true };
  return {
    body: createSchemaCompilers(dialect, options),
    // Header values are text: "10" is read as the integer a schema asks for.
    header: createSchemaCompilers(dialect, { ...options, coerceTypes: true }).all,
  };
}

/** The schema as the dialect's ajv reads it, and, where it keeps a cycle's `$ref`s, with its document as the root. */
interface SchemaSource {
  prepare(schema: JsonSchema): JsonSchema;
}

function createSchemaSource(api: ApiModel): SchemaSource {
  const memo = new WeakMap<object, unknown>();
  const adapt = (value: JsonSchema): JsonSchema => adaptOpenApiSchema(value, api.dialect, memo);
  let root: Record<string, unknown> | undefined;
  return {
    prepare(schema) {
      const adapted = adapt(schema);
      if (!JSON.stringify(adapted).includes('"$ref"')) return adapted;
      // The `$ref`s a cycle left point into the document: compiled beside its members, they resolve there.
      if (!root) {
        const adapted = adapt({ ...api.schemaRoot });
        root = typeof adapted === 'object' ? { ...adapted } : {};
      }
      return { ...root, allOf: [adapted] };
    },
  };
}

function compileResponse(response: ApiResponse, source: SchemaSource, ajv: Compilers): CompiledResponse {
  const headers: CompiledHeader[] = [];
  for (const [name, header] of Object.entries(response.headers)) {
    const lower = name.toLowerCase();
    // OpenAPI: a response header named Content-Type is ignored (the media types say it).
    if (lower === 'content-type') continue;
    const schema = header.schema;
    const simple =
      typeof schema === 'object' &&
      (SCALAR_TYPES.has(String(schema.type)) || (schema.type === undefined && !schema.properties && !schema.items));
    headers.push({
      name: lower,
      required: header.required,
      ...(simple && {
        validate: ajv.header.compile({ type: 'object', properties: { value: source.prepare(schema) } }),
      }),
    });
  }
  const media = Object.entries(response.content).map(([type, content]): CompiledMedia => {
    const schema = content.schema;
    if (schema === undefined || !isJsonMediaType(type)) return { type: type.toLowerCase(), remembered: [] };
    return compileJsonMedia(type, schema, source, ajv, `${response.status} schema`);
  });
  return { source: response, headers, media };
}

/** The check of a JSON body's schema, up to MAX_CHECKED_NODES nodes; `what` names the schema when it has more. */
function compileJsonMedia(
  type: string,
  schema: JsonSchema,
  source: SchemaSource,
  ajv: Compilers,
  what: string,
): CompiledMedia {
  const nodes = countExpandedNodes(schema, MAX_CHECKED_NODES);
  if (nodes > MAX_CHECKED_NODES) throw new Error(`its ${what} expands to more than ${MAX_CHECKED_NODES} nodes`);
  return {
    type: type.toLowerCase(),
    validate: ajv.body.compilePair(source.prepare(schema)),
    listedLength: Math.floor(MAX_LISTED_WORK / nodes),
    remembered: [],
  };
}

/** The response a status falls under: its own code, its range (`2XX`), or `default`. */
function findResponse(responses: readonly CompiledResponse[], status: number): CompiledResponse | undefined {
  const code = String(status);
  const range = `${code[0]}XX`;
  return (
    responses.find((r) => r.source.status === code) ??
    responses.find((r) => r.source.status === range) ??
    responses.find((r) => r.source.status === 'default')
  );
}

const essence = (type: string): string => type.split(';')[0].trim().toLowerCase();

/** The declared media type a reply's type falls under: itself, its major type with a star, or the star type. */
function findMedia(media: CompiledResponse['media'], type: string): CompiledResponse['media'][number] | undefined {
  const actual = essence(type);
  const [major] = actual.split('/');
  return (
    media.find((m) => essence(m.type) === actual) ??
    media.find((m) => essence(m.type) === `${major}/*`) ??
    media.find((m) => essence(m.type) === '*/*')
  );
}

function headerText(value: HeaderValue): string {
  return Array.isArray(value) ? value.join(', ') : String(value);
}

function findHeader(headers: Record<string, HeaderValue> | undefined, name: string): HeaderValue | undefined {
  for (const key in headers) if (key.toLowerCase() === name) return headers[key];
  return undefined;
}

const textDecoder = new TextDecoder('utf-8', { fatal: true });

/** Lets the event loop serve other clients between two steps of a large body's check. */
const nextTurn = (): Promise<void> => new Promise((resolve) => setImmediate(resolve));

/** A violation of the body as a whole (or at `pointer`): what the check refuses to read rather than pass. */
function unreadable(expected: string, actual: string, message: string, pointer = ''): ReplyViolation {
  return { kind: 'body', severity: 'error', pointer, expected, actual, message };
}

const NOT_JSON = unreadable('JSON', 'text that is not JSON', 'is not JSON, though its content type says so');
const NOT_UTF8 = unreadable(
  'UTF-8 text',
  'bytes that are not UTF-8',
  'is not UTF-8, though its content type says JSON',
);
const EVENT_NOT_UTF8 = unreadable(
  'UTF-8 text',
  'bytes that are not UTF-8',
  "is not UTF-8, though it is the stream's first event, whose data is text",
);

/**
 * How a body's text is read: `json`, as its JSON content type says (text that is not JSON is a violation); `event`,
 * as the data of a stream's event, which the gateway sends as JSON when it parses and as a JSON string otherwise
 * (createStreamEvent), so the check reads the value the client gets.
 */
type BodyReading = 'json' | 'event';

/** A body that makes no event: the opener sends the stream without one. */
const isEmptyBody = (body: unknown): boolean =>
  body === undefined ||
  body === null ||
  ((body instanceof Uint8Array || typeof body === 'string') && body.length === 0);
const TOO_DEEP = unreadable(
  `at most ${MAX_JSON_DEPTH} levels of nesting`,
  `more than ${MAX_JSON_DEPTH} levels`,
  `nests deeper than ${MAX_JSON_DEPTH} levels`,
);

/** What each ambiguity (findAmbiguousJson) says: JSON readers would not all read what the check read. */
const AMBIGUITIES: Record<JsonAmbiguity['kind'], Omit<ReplyViolation, 'kind' | 'severity' | 'pointer'>> = {
  'duplicate-name': {
    expected: 'each name once in an object',
    actual: 'a repeated name',
    message: 'repeats a name in one object: JSON readers disagree on which value it has',
  },
  'non-finite-number': {
    expected: 'a finite number',
    actual: 'a number too large for JSON readers',
    message: 'is a number JSON readers cannot read as a finite number',
  },
  'inexact-integer': {
    expected: 'an integer JSON readers read exactly',
    actual: 'a number read as another integer',
    message: 'reads as an integer other than the one written (past 2^53, or finer than a double)',
  },
};

function isRemembered(media: CompiledMedia, bytes: Uint8Array): boolean {
  for (const { buffer, length } of media.remembered) {
    if (length === bytes.length && buffer.compare(bytes, 0, length, 0, length) === 0) return true;
  }
  return false;
}

/**
 * Keeps a copy of a valid body (the message's bytes may be a view of a buffer the NATS client reuses), in place of
 * the oldest when there is no room, in its buffer when it fits: replies that vary cost no allocation (a new copy
 * each was 5 µs of a page's check, and garbage).
 */
function remember(media: CompiledMedia, bytes: Uint8Array): void {
  const kept = media.remembered;
  let held = 0;
  for (const body of kept) held += body.buffer.length;
  let spare: Buffer | undefined;
  while (kept.length > 0 && (kept.length >= REMEMBERED_BODIES || held + bytes.length > REMEMBERED_BODY_BYTES)) {
    const oldest = kept.shift()!;
    held -= oldest.buffer.length;
    if (oldest.buffer.length >= bytes.length) spare = oldest.buffer;
  }
  if (spare && held + spare.length > REMEMBERED_BODY_BYTES) spare = undefined;
  // Room to spare when there is some, so that a page a little longer than the one before does not allocate again.
  const room = Math.min(Math.ceil(bytes.length * 1.25), REMEMBERED_BODY_BYTES - held);
  const buffer = spare ?? Buffer.allocUnsafeSlow(Math.max(room, bytes.length));
  buffer.set(bytes);
  kept.push({ buffer, length: bytes.length });
}

function compileOperation(endpoint: ApiEndpoint, source: SchemaSource, ajv: Compilers): ReplyChecker {
  const responses = endpoint.model.responses.map((response) => compileResponse(response, source, ajv));
  const declared = responses.map((response) => response.source.status).join(', ');
  // The one schema of a stream's events (the model's, as -m samples it): what its opening reply's body is checked by.
  const itemSchema = endpoint.model.stream?.itemSchema;
  const event =
    itemSchema === undefined
      ? undefined
      : compileJsonMedia('text/event-stream', itemSchema, source, ajv, 'event schema (itemSchema)');

  const checkJson = (
    media: CompiledMedia,
    validate: ValidatorPair<ValidateFunction>,
    value: unknown,
    length: number,
  ) => {
    // Past the work bound, a length findSchemaErrors reads as a large body's: the first error only.
    const listed = media.listedLength === undefined || length <= media.listedLength ? length : Infinity;
    return toViolations(findSchemaErrors(validate, value, listed).errors, 'body', (path) => path);
  };

  const checkValue = (status: string, mediaType: string, value: unknown): ReplyViolation[] => {
    const response = responses.find((r) => r.source.status === status);
    const media = response?.media.find((m) => m.type === mediaType.toLowerCase());
    return media?.validate ? checkJson(media, media.validate, value, 0) : [];
  };

  /**
   * A stream operation's 2xx reply opens its stream: no HTTP answer, its body (the snapshot) the first event. So the
   * body is checked against the event schema, as the client gets it, and nothing else: the status, headers and
   * content type go no further than the gateway. A reply without a body opens the stream without an event.
   */
  async function checkFirstEvent(body: unknown): Promise<ReplyViolation[]> {
    if (!event?.validate || isEmptyBody(body)) return [];
    return (await checkBody(event, event.validate, body, 'event')).slice(0, MAX_LISTED_PROBLEMS);
  }

  async function check(reply: ResponseMessage, use: ReplyUse = 'answer'): Promise<ReplyViolation[]> {
    const status = reply.status ?? 200;
    if (use === 'stream' && status >= 200 && status < 300) return checkFirstEvent(reply.body);
    if (responses.length === 0) return [];
    const response = findResponse(responses, status);
    if (!response) {
      return [
        {
          kind: 'status',
          severity: status >= 200 && status < 300 ? 'error' : 'warning',
          pointer: 'status',
          expected: declared,
          actual: String(status),
          message: `the status ${status} is not declared (declared: ${declared})`,
        },
      ];
    }
    const violations: ReplyViolation[] = [];
    for (const header of response.headers) {
      const value = findHeader(reply.headers, header.name);
      const pointer = `header/${header.name}`;
      if (value === undefined) {
        if (header.required) {
          violations.push({
            kind: 'header',
            severity: 'error',
            pointer,
            expected: 'present',
            actual: 'absent',
            code: 'required',
            message: 'is required',
          });
        }
      } else if (header.validate && !header.validate({ value: headerText(value) })) {
        violations.push(...toViolations(header.validate.errors ?? [], 'header', () => pointer));
      }
    }
    const body = reply.body;
    const hasBody =
      status !== 204 &&
      status !== 304 &&
      body !== undefined &&
      body !== null &&
      !(body instanceof Uint8Array && body.length === 0);
    if (hasBody && response.media.length > 0) {
      const declaredType = findHeader(reply.headers, 'content-type');
      const type =
        declaredType !== undefined
          ? headerText(declaredType)
          : body instanceof Uint8Array
            ? 'application/octet-stream'
            : defaultContentType(body);
      const media = findMedia(response.media, type);
      if (!media) {
        const expected = response.media.map((m) => m.type).join(', ');
        violations.push({
          kind: 'content-type',
          severity: 'error',
          pointer: 'content-type',
          expected,
          actual: essence(type),
          message: `the content type ${essence(type)} is not declared for ${response.source.status} (declared: ${expected})`,
        });
      } else if (media.validate && isJsonMediaType(type)) {
        violations.push(...(await checkBody(media, media.validate, body, 'json')));
      }
    }
    return violations.slice(0, MAX_LISTED_PROBLEMS);
  }

  /**
   * A JSON body's violations. A text is refused before it is parsed when it nests deeper than the requests --validate
   * reads (MAX_JSON_DEPTH) or is not UTF-8, and after, when JSON readers could read it otherwise than the check did
   * (findAmbiguousJson); a value (a reply sent as one envelope, parsed and bounded in depth by the codec) when the
   * gateway would write it otherwise than the check read it. What the check cannot read is a violation, never a pass.
   * An event's text that is not JSON is read as the string the client gets (BodyReading).
   */
  async function checkBody(
    media: CompiledMedia,
    validate: ValidatorPair<ValidateFunction>,
    body: unknown,
    reading: BodyReading,
  ): Promise<ReplyViolation[]> {
    const bytes = body instanceof Uint8Array ? body : undefined;
    if (bytes && isRemembered(media, bytes)) return [];
    if (!bytes && typeof body !== 'string') {
      const shape = inspectBodyValue(body, MAX_JSON_DEPTH);
      if (shape.tooDeep) return [TOO_DEEP];
      if (shape.nonFinite !== undefined) {
        return [{ kind: 'body', severity: 'error', pointer: shape.nonFinite, ...AMBIGUITIES['non-finite-number'] }];
      }
      return checkJson(media, validate, body, shape.textLength);
    }
    // One pass over the bytes, before JSON.parse reads any depth and a recursive schema's check overflows the stack.
    if (isNestedDeeperThan(bytes ?? String(body), MAX_JSON_DEPTH)) return [TOO_DEEP];
    let text: string;
    try {
      text = bytes ? textDecoder.decode(bytes) : String(body);
    } catch {
      return [reading === 'event' ? EVENT_NOT_UTF8 : NOT_UTF8];
    }
    let value: unknown;
    let json = true;
    try {
      // A text up to a slice is parsed at once (as parseJsonInSlices would), without a promise to wait for.
      value = text.length <= JSON_SLICE_LENGTH ? JSON.parse(text) : await parseJsonInSlices(text);
    } catch {
      if (reading === 'json') return [NOT_JSON];
      value = text.trim() === '' ? null : text;
      json = false;
    }
    // A large text's scan and check each take a turn of their own (some 30 ms a MiB each), as its parse's slices do.
    const large = text.length > JSON_SLICE_LENGTH;
    if (large) await nextTurn();
    const ambiguity = json ? findAmbiguousJson(text) : undefined;
    if (ambiguity)
      return [{ kind: 'body', severity: 'error', pointer: ambiguity.pointer, ...AMBIGUITIES[ambiguity.kind] }];
    if (large) await nextTurn();
    const violations = checkJson(media, validate, value, text.length);
    if (bytes && violations.length === 0 && bytes.length <= REMEMBERED_BODY_BYTES) remember(media, bytes);
    return violations;
  }

  return { check, checkValue };
}

/**
 * Compiles, once per operation and per load, the check of its replies (see ReplyChecker): status declared (its
 * code, a `2XX` range or `default`), content type declared, required headers present and simple header values
 * matching their schema, a JSON body matching its schema (OAS 3.1 as JSON Schema 2020-12, 2.0 and 3.0 as draft-07
 * with OpenAPI's `nullable`), formats included. `skipped`: operations whose schemas do not compile, with why.
 */
export function createReplyChecks(endpoints: readonly ApiEndpoint[]): {
  checkers: Map<ApiEndpoint, ReplyChecker>;
  skipped: string[];
} {
  const draft7 = createCompilers('3.0');
  const draft2020 = createCompilers('3.1');
  const sources = new Map<ApiModel, SchemaSource>();
  const checkers = new Map<ApiEndpoint, ReplyChecker>();
  const skipped: string[] = [];
  for (const endpoint of endpoints) {
    if (endpoint.static) continue;
    let source = sources.get(endpoint.api);
    if (!source) sources.set(endpoint.api, (source = createSchemaSource(endpoint.api)));
    try {
      checkers.set(endpoint, compileOperation(endpoint, source, endpoint.api.dialect === '3.1' ? draft2020 : draft7));
    } catch (err) {
      skipped.push(
        `${endpoint.model.name} (${endpoint.desc.method.toUpperCase()} ${endpoint.desc.uri}): ${err instanceof Error ? err.message : String(err)}`,
      );
    }
  }
  return { checkers, skipped };
}
