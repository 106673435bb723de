import { validateHeaderName, validateHeaderValue } from 'node:http';
import { isJsonMediaType, RestbusError, type ResponseMessage } from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';
import { chooseMediaType } from './choose-media-type';
import { chooseResponse } from './choose-response';
import { createSchemaSampler, type SchemaSampler } from './create-schema-sampler';
import { isObject, type Json } from './is-object';
import { listNames } from './list-names';
import type { MockPreference } from './read-prefer';

/** A media type a response can be sent in, and how to make its body in it (undefined: no body). */
interface Media {
  type: string;
  text(): string | undefined;
}

/** A value as the body of `type`: a string as is unless the type is JSON, anything else as JSON. */
function toText(type: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' && !isJsonMediaType(type) ? value : JSON.stringify(value);
}

/** Where a response of `endpoint` is declared, for messages: `GET /pets answers 200 in application/json`. */
const describe = (endpoint: ApiEndpoint, key: string, type: string): string =>
  `${endpoint.desc.method.toUpperCase()} ${endpoint.desc.uri} (its ${key} response in ${type})`;

/**
 * The body built from a schema, or none; `MOCK_UNAVAILABLE` when it would pass the sampler's bound: the document
 * asks for more than -m builds (it says so at load too), and the client can do nothing about it.
 */
function sampleBody(
  sampler: SchemaSampler,
  endpoint: ApiEndpoint,
  schema: unknown,
  where: { key: string; type: string },
): string | undefined {
  const result = sampler.sample(schema, endpoint.document);
  if ('tooLarge' in result) {
    throw new RestbusError(
      'MOCK_UNAVAILABLE',
      `${describe(endpoint, where.key, where.type)}: the body built from its schema would be ${result.tooLarge}; give the response an example`,
    );
  }
  if (!result.sample) return undefined;
  const { value, json } = result.sample;
  return typeof value === 'string' && !isJsonMediaType(where.type) ? value : json;
}

/** The media types of a response, in declared order; undefined when it has no body. */
function listMedia(
  endpoint: ApiEndpoint,
  chosen: { key: string; response: Json },
  preference: MockPreference,
  sampler: SchemaSampler,
): Media[] | undefined {
  const { key, response } = chosen;
  if (endpoint.dialect === '2.0') {
    const examples = isObject(response.examples) ? response.examples : {};
    if (response.schema === undefined && Object.keys(examples).length === 0) return undefined;
    const types = [...new Set([...endpoint.desc.produces, ...Object.keys(examples)])];
    return (types.length > 0 ? types : ['application/json']).map((type) => ({
      type,
      text: () =>
        Object.hasOwn(examples, type)
          ? toText(type, examples[type])
          : sampleBody(sampler, endpoint, response.schema, { key, type }),
    }));
  }
  const content = isObject(response.content) ? response.content : undefined;
  if (!content || Object.keys(content).length === 0) return undefined;
  return Object.entries(content).map(([type, raw]) => ({
    type,
    text: () => {
      const media = isObject(raw) ? raw : {};
      const examples = isObject(media.examples) ? media.examples : {};
      if (preference.example !== undefined) {
        // Own names only: `example=__proto__` or `example=constructor` name nothing the document declares.
        const named = Object.hasOwn(examples, preference.example) ? examples[preference.example] : undefined;
        if (!isObject(named)) {
          const names = Object.keys(examples);
          throw new RestbusError(
            'BAD_REQUEST',
            `Prefer: example=${preference.example.slice(0, 64)}: the response in ${type} has no such example (${names.length > 0 ? `it has ${listNames(names)}` : 'it has none'})`,
          );
        }
        return toText(type, named.value);
      }
      const first = Object.values(examples).find(isObject);
      if (media.example !== undefined) return toText(type, media.example);
      return first && 'value' in first
        ? toText(type, first.value)
        : sampleBody(sampler, endpoint, media.schema, { key, type });
    },
  }));
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
 * A declared header's value as text: its example (the first of `examples`), else one built from its schema; no text
 * when there is none, or why it cannot be built within the sampler's bound.
 */
export function readHeaderValue(
  endpoint: ApiEndpoint,
  raw: unknown,
  sampler: SchemaSampler,
): { text?: string } | { tooLarge: string } {
  if (!isObject(raw)) return {};
  const examples = isObject(raw.examples) ? Object.values(raw.examples).find(isObject) : undefined;
  let value = raw.example ?? raw['x-example'] ?? examples?.value;
  if (value === undefined) {
    const result = sampler.sample(endpoint.dialect === '2.0' ? raw : raw.schema, endpoint.document);
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
  declared: unknown,
  sampler: SchemaSampler,
): Record<string, string> {
  const headers = Object.create(null) as Record<string, string>;
  for (const [name, raw] of Object.entries(isObject(declared) ? declared : {})) {
    const lower = name.toLowerCase();
    if (lower === 'content-type') continue;
    const value = readHeaderValue(endpoint, raw, sampler);
    if ('text' in value && value.text !== undefined && canCarry(lower, value.text)) headers[lower] = value.text;
  }
  return headers;
}

/**
 * The answer of `-m` for one call (its `Accept` header, its `Prefer` preferences), following Prism's static mode:
 * the response `chooseResponse` picks, in the media type `Accept` prefers among those it declares
 * (`406 NOT_ACCEPTABLE` when none fits), its body the chosen example or one built from the schema (within the
 * sampler's bound, else `500 MOCK_UNAVAILABLE`), its declared headers with their examples. 204 and 304 have no body,
 * nor has an answer to HEAD.
 */
export function buildMockResponse(
  endpoint: ApiEndpoint,
  accept: string | undefined,
  preference: MockPreference,
  sampler: SchemaSampler = createSchemaSampler(),
): ResponseMessage {
  const responses = isObject(endpoint.operation.responses)
    ? (endpoint.operation.responses as Record<string, Json>)
    : {};
  const chosen = chooseResponse(responses, preference.code);
  if (!chosen) return { status: 200 };
  const response = isObject(chosen.response) ? chosen.response : {};
  const headers = buildMockHeaders(endpoint, response.headers, sampler);
  const media = listMedia(endpoint, { key: chosen.key, response }, preference, sampler);
  if (!media) return { status: chosen.status, headers };
  const available = media.map((candidate) => candidate.type);
  const type = chooseMediaType(accept, available);
  if (type === undefined) {
    throw new RestbusError(
      'NOT_ACCEPTABLE',
      `${endpoint.desc.method.toUpperCase()} ${endpoint.desc.uri} answers ${listNames(available)}; the request accepts none of them`,
    );
  }
  headers['content-type'] = type;
  // HEAD keeps the body: Node sends none, and the content-length it computes is the one GET would have.
  if (chosen.status === 204 || chosen.status === 304) return { status: chosen.status, headers };
  return { status: chosen.status, headers, body: media[available.indexOf(type)].text() };
}
