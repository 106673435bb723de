import { isJsonMediaType } from '@restbus/infra';
import { describeEvents, type ApiMedia } from '@restbus/openapi';
import { isEventStreamType } from '@restbus/project-format';
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
 * The JSON body of a content map of the model (Swagger 2's body, form and response schemas are given there under each
 * type consumed or produced), with its first example; every other media type is left out with a warning.
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

/** A body's mock: its example, else a sample built from its schema; undefined when it has neither. */
export const mockOf = (body: Body): unknown =>
  body.example !== undefined ? body.example : body.schema !== undefined ? sampleFromSchema(body.schema) : undefined;

/** An event stream answer as the project holds it: the events' data (its mock file) and the schema of one event. */
export interface EventsBody {
  mediaType: string;
  events: unknown[];
  schema?: Schema;
}

/**
 * The `text/event-stream` media type of a content map, if it has one, and the rest of the map. Its events are the
 * examples of one event (describeEvents: OAS 3.2's whole-event items unwrapped), else one sample of its schema.
 */
export function splitEventStream(
  context: MappingContext,
  content: Readonly<Record<string, ApiMedia>> | undefined,
): { events?: EventsBody; rest: Readonly<Record<string, ApiMedia>> | undefined } {
  const type = Object.keys(content ?? {}).find((name) => isEventStreamType(name));
  if (!content || type === undefined) return { rest: content };
  const { [type]: media, ...rest } = content;
  const described = describeEvents(media);
  const schema = described.itemSchema !== undefined ? schemaOf(context, described.itemSchema) : undefined;
  let events: unknown[] = described.examples.map((example) => example.value ?? null);
  if (!events.length && schema !== undefined) events = [sampleFromSchema(schema)];
  return { events: { mediaType: type, events, ...(schema !== undefined && { schema }) }, rest };
}
