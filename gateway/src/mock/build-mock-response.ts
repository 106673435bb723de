import Negotiator from 'negotiator';
import { sample } from 'openapi-sampler';
import { isJsonMediaType, RestbusError, type ResponseMessage } from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';
import { isObject, type Json } from './is-object';
import { chooseResponse } from './choose-response';
import type { MockPreference } from './read-prefer';

/**
 * A value built from a schema, the same every time (openapi-sampler: `example`, `default`, the first of `enum`,
 * else a value of the type and format); undefined when the schema cannot be sampled (a cycle through another file).
 */
function sampleSchema(schema: unknown, document: object | undefined): unknown {
  if (!isObject(schema)) return undefined;
  try {
    return sample(schema as never, { quiet: true, skipWriteOnly: true }, document);
  } catch {
    return undefined;
  }
}

/** A media type a response can be sent in, and how to make its body in it. */
interface Media {
  type: string;
  value(): unknown;
}

/** The media types of a response, in declared order; undefined when it has no body. */
function listMedia(endpoint: ApiEndpoint, response: Json, preference: MockPreference): Media[] | undefined {
  if (endpoint.dialect === '2.0') {
    const examples = isObject(response.examples) ? response.examples : {};
    if (response.schema === undefined && Object.keys(examples).length === 0) return undefined;
    const types = [...new Set([...endpoint.desc.produces, ...Object.keys(examples)])];
    return (types.length > 0 ? types : ['application/json']).map((type) => ({
      type,
      value: () => (type in examples ? examples[type] : sampleSchema(response.schema, endpoint.document)),
    }));
  }
  const content = isObject(response.content) ? response.content : undefined;
  if (!content || Object.keys(content).length === 0) return undefined;
  return Object.entries(content).map(([type, raw]) => ({
    type,
    value: () => {
      const media = isObject(raw) ? raw : {};
      const examples = isObject(media.examples) ? media.examples : {};
      if (preference.example !== undefined) {
        const named = examples[preference.example];
        if (!isObject(named)) {
          const names = Object.keys(examples);
          throw new RestbusError(
            'BAD_REQUEST',
            `Prefer: example=${preference.example.slice(0, 64)}: the response in ${type} has no such example (${names.length > 0 ? `it has ${names.join(', ')}` : 'it has none'})`,
          );
        }
        return named.value;
      }
      const first = Object.values(examples).find(isObject);
      if (media.example !== undefined) return media.example;
      return first && 'value' in first ? first.value : sampleSchema(media.schema, endpoint.document);
    },
  }));
}

/** A declared header's value: its example (the first of `examples`), else one built from its schema. */
function headerValue(endpoint: ApiEndpoint, raw: unknown): string | undefined {
  if (!isObject(raw)) return undefined;
  const examples = isObject(raw.examples) ? Object.values(raw.examples).find(isObject) : undefined;
  const value =
    raw.example ??
    raw['x-example'] ??
    examples?.value ??
    (endpoint.dialect === '2.0' ? sampleSchema(raw, endpoint.document) : sampleSchema(raw.schema, endpoint.document));
  if (value === undefined || value === null) return undefined;
  if (Array.isArray(value)) return value.map(String).join(',');
  return typeof value === 'object' ? JSON.stringify(value) : String(value);
}

function toText(type: string, value: unknown): string | undefined {
  if (value === undefined) return undefined;
  return typeof value === 'string' && !isJsonMediaType(type) ? value : JSON.stringify(value);
}

/**
 * The answer of `-m` for one call (its `Accept` header, its `Prefer` preferences), following Prism's static mode:
 * the response `chooseResponse` picks, in the media type `Accept` prefers among those it declares
 * (`406 NOT_ACCEPTABLE` when none fits), its body the chosen example or one built from the schema, its declared
 * headers with their examples. 204 and 304 have no body, nor has an answer to HEAD.
 */
export function buildMockResponse(
  endpoint: ApiEndpoint,
  accept: string | undefined,
  preference: MockPreference,
): ResponseMessage {
  const responses = isObject(endpoint.operation.responses)
    ? (endpoint.operation.responses as Record<string, Json>)
    : {};
  const chosen = chooseResponse(responses, preference.code);
  if (!chosen) return { status: 200 };
  const headers: Record<string, string> = {};
  for (const [name, raw] of Object.entries(isObject(chosen.response.headers) ? chosen.response.headers : {})) {
    if (name.toLowerCase() === 'content-type') continue;
    const value = headerValue(endpoint, raw);
    if (value !== undefined) headers[name.toLowerCase()] = value;
  }
  const media = listMedia(endpoint, chosen.response, preference);
  if (!media) return { status: chosen.status, headers };
  const available = media.map((candidate) => candidate.type);
  const [type] = new Negotiator({ headers: { accept } }).mediaTypes(available);
  if (type === undefined) {
    throw new RestbusError(
      'NOT_ACCEPTABLE',
      `${endpoint.desc.method.toUpperCase()} ${endpoint.desc.uri} answers ${available.join(', ')}; the request accepts none of them`,
    );
  }
  headers['content-type'] = type;
  // HEAD keeps the body: Node sends none, and the content-length it computes is the one GET would have.
  if (chosen.status === 204 || chosen.status === 304) return { status: chosen.status, headers };
  return { status: chosen.status, headers, body: toText(type, media[available.indexOf(type)].value()) };
}
