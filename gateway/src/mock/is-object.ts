export type Json = Record<string, unknown>;

/** A JSON object (not an array, not null): what the parts of an OpenAPI document the mock reads must be. */
export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);
