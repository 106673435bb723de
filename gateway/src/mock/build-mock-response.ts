import { validateHeaderName, validateHeaderValue } from 'node:http';
import { isJsonMediaType, isJsonObject, isRestbusError, RestbusError, type ResponseMessage } from '@restbus/infra';
import type { ApiMedia, ApiResponse, JsonSchema } from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { chooseMediaType } from './choose-media-type';
import { chooseResponse } from './choose-response';
import { createSchemaSampler, type SchemaSampler } from './create-schema-sampler';
import { listDeclaredHeaders, type DeclaredHeader } from './list-declared-headers';
import { listNames } from './list-names';
import { nameSelector, type MockPreference } from './read-prefer';

/** A body as -m sends it: the type it is written in and its text (undefined: no body). */
interface Body {
  type: string;
  text: string | undefined;
}

/**
 * A media type a response declares, and how to make its body in it: undefined when the document has none written
 * in that type (an object is no HTML or plain text, nor XML when its keys are no element names).
 */
interface Media {
  type: string;
  body(): Body | undefined;
}

const essenceOf = (type: string): string => type.split(';')[0].trim().toLowerCase();

/** `application/xml`, `text/xml`, `application/atom+xml`: a type -m can build a body in from a schema. */
export function isXmlMediaType(type: string): boolean {
  const essence = essenceOf(type);
  return essence === 'application/xml' || essence === 'text/xml' || essence.endsWith('+xml');
}

/** Whether a declared range (any type, `text/*`, `application/*`) takes `type`. */
const covers = (range: string, type: string): boolean => range === '*/*' || range === `${type.split('/')[0]}/*`;

/**
 * A value as a body in the declared `type`, or undefined when it cannot be one, rather than a body in a type it is
 * not: a JSON type takes any value as JSON; any other type a string as it is, and `text/*` a number or a boolean.
 * A declared range (any type, `application/*`, `text/*`) stands for the type of the value it covers: a string is
 * `text/plain`, anything else `application/json`.
 */
function writeAs(type: string, value: unknown): Body | undefined {
  if (value === undefined) return { type, text: undefined };
  if (isJsonMediaType(type)) return { type, text: JSON.stringify(value) };
  const essence = essenceOf(type);
  if (essence.includes('*')) {
    if (typeof value === 'string' && covers(essence, 'text/plain')) return { type: 'text/plain', text: value };
    return covers(essence, 'application/json') ? { type: 'application/json', text: JSON.stringify(value) } : undefined;
  }
  if (typeof value === 'string') return { type, text: value };
  const scalar = typeof value === 'number' || typeof value === 'boolean';
  return scalar && essence.startsWith('text/') ? { type, text: String(value) } : undefined;
}

/** Where a response of `endpoint` is declared, for messages: `GET /pets answers 200 in application/json`. */
const describe = (endpoint: ApiEndpoint, key: string, type: string): string =>
  `${nameOf(endpoint)} (its ${key} response in ${type})`;

/** `GET /pets/{id}`: the operation as messages name it. */
const nameOf = ({ model }: ApiEndpoint): string => `${model.method.toUpperCase()} ${model.path}`;

/**
 * The body built from a schema (in an XML type, an XML document), none, or undefined when the value built is not
 * written in the type; `MOCK_UNAVAILABLE` when it would pass the sampler's bound: the document asks for more than -m
 * builds (it says so at load too), and the client can do nothing about it.
 */
function sampleBody(
  sampler: SchemaSampler,
  endpoint: ApiEndpoint,
  schema: JsonSchema | undefined,
  where: { key: string; type: string },
): Body | undefined {
  const result = sampler.sample(schema, endpoint.api.schemaRoot, isXmlMediaType(where.type) ? 'xml' : 'json');
  if ('tooLarge' in result) {
    throw new RestbusError(
      'MOCK_UNAVAILABLE',
      `${describe(endpoint, where.key, where.type)}: the body built from its schema would be ${result.tooLarge}; give the response an example`,
    );
  }
  if (!result.sample) return { type: where.type, text: undefined };
  const { value, json } = result.sample;
  // The JSON text is there already: a JSON type takes it as it is.
  return isJsonMediaType(where.type) ? { type: where.type, text: json } : writeAs(where.type, value);
}

/**
 * An XML element name as -m writes one (XML 1.0's Name, with at most one prefix): an example whose keys are all such
 * names becomes an XML document; one with a key such as `two words`, `$id` or `#text` would be broken XML, or read by
 * the XML writer as an attribute or a text node, and is not written as XML.
 */
const XML_NAME = /^[\p{L}_][\p{L}\p{N}_.-]*(?::[\p{L}_][\p{L}\p{N}_.-]*)?$/u;

/** Whether every key of `value`, at any depth, is an XML element name (a loop, not recursion: examples nest deep). */
function hasXmlNames(value: object): boolean {
  const pending: unknown[] = [value];
  while (pending.length > 0) {
    const next = pending.pop();
    if (typeof next !== 'object' || next === null) continue;
    if (Array.isArray(next)) for (const item of next) pending.push(item);
    else {
      for (const [key, item] of Object.entries(next)) {
        if (!XML_NAME.test(key)) return false;
        pending.push(item);
      }
    }
  }
  return true;
}

/**
 * An example as a body in `where.type`: an object or array in an XML type is written as an XML document, its root
 * element and array items named as the media type's schema says (its `xml.name`, else the name of the component its
 * `$ref` points to, else `root`: openapi-sampler's XML, within the sampler's bound), the rest of its elements named
 * after its keys; undefined when a key is no element name. Any other example as writeAs writes it.
 */
function writeExample(
  endpoint: ApiEndpoint,
  where: { key: string; type: string },
  media: ApiMedia,
  value: unknown,
  sampler: SchemaSampler,
): Body | undefined {
  if (!isXmlMediaType(where.type) || typeof value !== 'object' || value === null) return writeAs(where.type, value);
  if (!hasXmlNames(value)) return undefined;
  // The example in place of the schema's own values; the schema still names the elements.
  const schema = isJsonObject(media.schema) ? { ...media.schema, example: value } : { example: value };
  const body = sampleBody(sampler, endpoint, schema, where);
  return body?.text === undefined ? undefined : body;
}

/**
 * Swagger 2 gives a response one body: the model repeats its schema under each type it produces, so a response with
 * neither schema nor example declares no body, whatever it produces.
 */
const hasBody = (endpoint: ApiEndpoint, response: ApiResponse): boolean =>
  endpoint.api.dialect !== '2.0' ||
  Object.values(response.content).some((media) => media.schema !== undefined || media.examples.length > 0);

/**
 * The body of one media type: the example `Prefer: example=` names (OpenAPI 3: Swagger 2 examples have no names),
 * else with `dynamic=true` one built from the schema, else the first example written in the type (in a type that is
 * not JSON, the first written in it: an XML text beside an object), else one built from the schema.
 */
function writeMedia(
  endpoint: ApiEndpoint,
  where: { key: string; type: string },
  media: ApiMedia,
  preference: MockPreference,
  sampler: SchemaSampler,
): Body | undefined {
  const { type } = where;
  if (preference.example !== undefined && endpoint.api.dialect !== '2.0') {
    const named = media.examples.find((example) => example.name === preference.example);
    if (!named) {
      const names = media.examples.map((example) => example.name);
      throw new RestbusError(
        'BAD_REQUEST',
        `${nameSelector(preference, 'example', preference.example.slice(0, 64))}: the response in ${type} has no such example (${names.length > 0 ? `it has ${listNames(names)}` : 'it has none'})`,
      );
    }
    return writeExample(endpoint, where, media, named.value, sampler);
  }
  if (preference.dynamic === true && media.examples.length > 0) {
    // Prism's dynamic mode builds from the schema, never from an example; without a schema there is nothing to build.
    if (media.schema === undefined) {
      throw new RestbusError(
        'BAD_REQUEST',
        `${nameSelector(preference, 'dynamic', 'true')}: the response in ${type} has no schema to build a body from (it has ${media.examples.length === 1 ? 'an example' : 'examples'}: ask without dynamic=true)`,
      );
    }
    return sampleBody(sampler, endpoint, media.schema, where);
  }
  if (media.examples.length === 0) return sampleBody(sampler, endpoint, media.schema, where);
  for (const { value } of media.examples) {
    const body = writeExample(endpoint, where, media, value, sampler);
    if (body) return body;
  }
  return undefined;
}

/** The media types of a response, in declared order; undefined when it has no body. */
function listMedia(
  endpoint: ApiEndpoint,
  response: ApiResponse,
  preference: MockPreference,
  sampler: SchemaSampler,
): Media[] | undefined {
  const content = Object.entries(response.content);
  if (content.length === 0 || !hasBody(endpoint, response)) return undefined;
  return content.map(([type, media]) => ({
    type,
    body: () => writeMedia(endpoint, { key: response.key, type }, media, preference, sampler),
  }));
}

/** The body of a media type, or undefined when it has none written in its type or cannot be built now. */
function tryBody(media: Media): Body | undefined {
  try {
    return media.body();
  } catch (err) {
    if (isRestbusError(err)) return undefined;
    throw err;
  }
}

/**
 * `406 NOT_ACCEPTABLE` naming the types -m can answer in, and those it declares with no example written in them.
 * Only the refused path builds the bodies of the types not weighed yet, to tell which can be given.
 */
function notAcceptable(endpoint: ApiEndpoint, media: readonly Media[], unwritten: readonly string[]): RestbusError {
  const operation = nameOf(endpoint);
  const given = media.filter((candidate) => !unwritten.includes(candidate.type) && tryBody(candidate));
  const missing = media.filter((candidate) => !given.includes(candidate)).map((candidate) => candidate.type);
  if (given.length === 0) {
    return new RestbusError(
      'NOT_ACCEPTABLE',
      `${operation} declares ${listNames(missing)} but has no example written in ${missing.length === 1 ? 'it' : 'any of them'}; give the response one`,
    );
  }
  const types = given.map((candidate) => candidate.type);
  const unwrittenNote =
    missing.length > 0
      ? ` (${listNames(missing)}: declared, with no example written in ${missing.length === 1 ? 'it' : 'them'})`
      : '';
  return new RestbusError(
    'NOT_ACCEPTABLE',
    `${operation} answers ${listNames(types)}${unwrittenNote}; the request accepts none of them`,
  );
}

/**
 * The media types of a response in which -m has no body written (an object its only example for HTML or plain
 * text, or for XML with keys that are no element names): a call that accepts only those is answered 406. One that
 * cannot be built for another reason (a schema past the sampler's bound) is warned of as such, not here.
 */
export function listUnwrittenTypes(endpoint: ApiEndpoint, response: ApiResponse, sampler: SchemaSampler): string[] {
  const media = listMedia(endpoint, response, {}, sampler) ?? [];
  return media
    .filter((candidate) => {
      if (isJsonMediaType(candidate.type)) return false;
      try {
        return candidate.body() === undefined;
      } catch (err) {
        if (isRestbusError(err)) return false;
        throw err;
      }
    })
    .map((candidate) => candidate.type);
}

/** Whether HTTP can carry this header as is (Node refuses to write it otherwise). */
export function canCarry(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}

/**
 * A declared header's value as text: its example, else one built from its schema; no text when there is none, or
 * why it cannot be built within the sampler's bound.
 */
export function readHeaderValue(
  endpoint: ApiEndpoint,
  header: DeclaredHeader,
  sampler: SchemaSampler,
): { text?: string } | { tooLarge: string } {
  let value = header.example;
  if (value === undefined) {
    const result = sampler.sample(header.schema, endpoint.api.schemaRoot);
    if ('tooLarge' in result) return result;
    value = result.sample?.value;
  }
  return { text: toHeaderText(value) };
}

function toHeaderText(value: unknown): string | undefined {
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String).join(',');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

/**
 * The headers a response declares, as the mock sends them: lower-cased, `Content-Type` left to negotiation, and
 * those HTTP cannot carry (a name with CR/LF or a space, a value with a control character) left out rather than
 * failing the answer. No prototype: a header named `__proto__` is a header like any other.
 */
export function buildMockHeaders(
  endpoint: ApiEndpoint,
  response: ApiResponse,
  sampler: SchemaSampler,
): Record<string, string> {
  const headers: Record<string, string> = Object.create(null);
  for (const header of listDeclaredHeaders(response)) {
    const lower = header.name.toLowerCase();
    if (lower === 'content-type') continue;
    const value = readHeaderValue(endpoint, header, sampler);
    if ('text' in value && value.text !== undefined && canCarry(lower, value.text)) headers[lower] = value.text;
  }
  return headers;
}

/**
 * The answer of `-m` for one call (its `Accept` header, its `Prefer` preferences), following Prism's static mode:
 * the response `chooseResponse` picks, in the media type `Accept` prefers among those it declares, its body the
 * chosen example or one built from the schema (within the sampler's bound, else `500 MOCK_UNAVAILABLE`), its
 * declared headers with their examples. A body is only sent in a type it is written in: when the preferred type has
 * none (an object in HTML or plain text), the next type the request accepts is weighed; `406 NOT_ACCEPTABLE`
 * when none is left. 204 and 304 have no body, nor has an answer to HEAD.
 */
export function buildMockResponse(
  endpoint: ApiEndpoint,
  accept: string | undefined,
  preference: MockPreference,
  sampler: SchemaSampler = createSchemaSampler(),
): ResponseMessage {
  const chosen = chooseResponse(endpoint.model.responses, preference.code, preference);
  if (!chosen) return { status: 200 };
  const headers = buildMockHeaders(endpoint, chosen.response, sampler);
  const media = listMedia(endpoint, chosen.response, preference, sampler);
  if (!media) return { status: chosen.status, headers };
  const available = media.map((candidate) => candidate.type);
  const unwritten: string[] = [];
  for (;;) {
    const type = chooseMediaType(
      accept,
      unwritten.length === 0 ? available : available.filter((candidate) => !unwritten.includes(candidate)),
    );
    if (type === undefined) throw notAcceptable(endpoint, media, unwritten);
    if (chosen.status === 204 || chosen.status === 304) {
      headers['content-type'] = type;
      return { status: chosen.status, headers };
    }
    // HEAD keeps the body: Node sends none, and the content-length it computes is the one GET would have.
    const body = media[available.indexOf(type)].body();
    if (body) {
      headers['content-type'] = body.type;
      return { status: chosen.status, headers, body: body.text };
    }
    unwritten.push(type);
  }
}
