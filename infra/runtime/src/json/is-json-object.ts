/** A JSON object as parsed: string keys, values not yet known. The one name for it across the packages. */
export type JsonObject = Record<string, unknown>;

/** Whether a parsed value is a JSON object (not an array, not null): the guard to read its keys without a cast. */
export const isJsonObject = (value: unknown): value is JsonObject =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
