import type { JsonSchema } from '@restbus/openapi';

type Json = Record<string, unknown>;

const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** Members whose values are data, not schemas: never rewritten. */
const DATA = new Set(['enum', 'const', 'example', 'examples', 'default', 'xml', 'externalDocs', 'discriminator']);

/**
 * Makes an OpenAPI 2.0/3.0 schema one ajv's draft-07 reads as OpenAPI means it: `nullable: true` beside no `type`
 * (as in `nullable` with `allOf`) becomes "null, or else the schema" (ajv refuses it otherwise), the boolean `exclusiveMinimum` and
 * `exclusiveMaximum` of draft 4 become the number forms, and Swagger 2's `type: file` no type. `nullable` beside a
 * `type` ajv reads itself. An unchanged object is returned as it is, so that shared schemas stay shared; `memo`
 * keeps each object's result (a document's schemas are adapted once, whichever operation reaches them).
 */
export function adaptOpenApiSchema(schema: JsonSchema, memo: Map<object, unknown>): JsonSchema {
  const adapted = adaptValue(schema, memo);
  return isObject(adapted) || typeof adapted === 'boolean' ? adapted : schema;
}

function adaptValue(schema: unknown, memo: Map<object, unknown>): unknown {
  if (Array.isArray(schema)) {
    const items = schema.map((item) => adaptValue(item, memo));
    return items.every((item, i) => item === schema[i]) ? schema : items;
  }
  if (!isObject(schema)) return schema;
  const known = memo.get(schema);
  if (known !== undefined) return known;
  // A placeholder while its members are adapted: a shared object met again below itself is left as it is.
  memo.set(schema, schema);
  let copy: Json | undefined;
  const change = (key: string, value: unknown): void => {
    copy ??= { ...schema };
    if (value === undefined) delete copy[key];
    else copy[key] = value;
  };
  for (const [key, value] of Object.entries(schema)) {
    if (DATA.has(key) || key.startsWith('x-') || value === null || typeof value !== 'object') continue;
    const adapted = adaptValue(value, memo);
    if (adapted !== value) change(key, adapted);
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof schema[exclusive] !== 'boolean') continue;
    if (schema[exclusive] === true && typeof schema[bound] === 'number') {
      change(exclusive, schema[bound]);
      change(bound, undefined);
    } else change(exclusive, undefined);
  }
  if (schema.type === 'file') change('type', undefined);
  let result: Json = copy ?? schema;
  if (result.nullable === true && result.type === undefined) {
    const { nullable: _nullable, ...rest } = result;
    // Not `anyOf`: a value that is not null then gets the errors of what it is, not "must match a schema in anyOf".
    result = { if: { type: 'null' }, else: rest };
  }
  memo.set(schema, result);
  return result;
}
