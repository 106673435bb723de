import { isJsonMediaType } from '@restbus/infra';
import type { ApiMedia } from '@restbus/openapi';
import { schemaOf, type MappingContext } from './mapping-context';
import { sampleFromSchema } from './sample-from-schema';
import type { Schema } from './to-json-schema';

/** A request or response body as the project holds it: JSON, with its schema and example when it has them. */
export interface Body {
  mediaType: string;
  schema?: Schema;
  example?: unknown;
}

/** The JSON media type among some (`application/json` first, then any `+json`), and the others. */
export function pickJson(types: readonly string[]): { json?: string; others: string[] } {
  const json =
    types.find((type) => type.split(';')[0].trim().toLowerCase() === 'application/json') ??
    types.find((type) => isJsonMediaType(type));
  return { json, others: types.filter((type) => type !== json) };
}

/**
 * The JSON body of an OpenAPI 3.x content map (the model's), with its first example (one with only an
 * `externalValue`, a URL, is none); every other media type is left out with a warning.
 */
export function contentBody(
  context: MappingContext,
  content: Readonly<Record<string, ApiMedia>> | undefined,
  where: string,
): Body | undefined {
  if (!content) return undefined;
  const { json, others } = pickJson(Object.keys(content));
  for (const type of others) context.warn(`${where} as ${type} left out (only JSON bodies are imported)`);
  if (!json) return undefined;
  const media = content[json];
  const example = media.examples[0]?.value;
  return {
    mediaType: json,
    ...(media.schema !== undefined ? { schema: schemaOf(context, media.schema) } : {}),
    ...(example !== undefined ? { example } : {}),
  };
}

/** A Swagger 2.0 body (a body parameter, a response schema) in the first JSON type of its consumes/produces. */
export function swaggerBody(
  context: MappingContext,
  body: { schema: unknown; example: unknown; types: readonly string[] },
  where: string,
): Body | undefined {
  const { json, others } = pickJson(body.types);
  if (!json) {
    context.warn(`${where} as ${body.types.join(', ')} left out (only JSON bodies are imported)`);
    return undefined;
  }
  for (const type of others) context.warn(`${where} as ${type} left out (only JSON bodies are imported)`);
  return {
    mediaType: json,
    ...(body.schema !== undefined ? { schema: schemaOf(context, body.schema) } : {}),
    ...(body.example !== undefined ? { example: body.example } : {}),
  };
}

/** A body's mock: its example, else a sample built from its schema; undefined when it has neither. */
export const mockOf = (body: Body): unknown =>
  body.example !== undefined ? body.example : body.schema !== undefined ? sampleFromSchema(body.schema) : undefined;
