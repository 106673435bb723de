import { isJsonObject, type JsonObject } from '../json/is-json-object';

/**
 * Which JSON Schema a set of schemas speaks: an OpenAPI version (2.0 and 3.0 are draft-04's bounds with OpenAPI's
 * `nullable`, `x-nullable` and `type: file`; 3.1 is 2020-12), or a JSON Schema draft named by a schema file's
 * `$schema`.
 */
export type SchemaDialect = '2.0' | '3.0' | '3.1' | 'draft-04' | 'draft-07' | '2020-12';

/** Members whose values are data, not schemas: never rewritten. */
const DATA = new Set(['enum', 'const', 'example', 'examples', 'default', 'xml', 'externalDocs', 'discriminator']);

/** Members whose values map names to schemas: every name is walked, `x-` names too (a property may be called so). */
const SCHEMA_MAPS = new Set(['properties', 'patternProperties', 'definitions', '$defs', 'dependencies']);

/** What each dialect writes in its own way; a dialect absent here is read by ajv as it is. */
interface DialectRules {
  /** Draft 4's `exclusiveMinimum: true` beside `minimum` (draft 6 on write the bound itself). */
  booleanBounds: boolean;
  /** The member that adds null to a schema's values: 3.0's `nullable`, 2.0's `x-nullable` extension. */
  nullable?: 'nullable' | 'x-nullable';
  /** Swagger 2's `type: file` (a formData parameter): a file part, any value, no JSON type. */
  fileType: boolean;
  /**
   * `nullable` where the dialect has no such keyword (2.0, 3.1): it says nothing there, and ajv, which reads it in
   * every dialect, would add null or refuse it beside no `type`.
   */
  dropNullable: boolean;
}

const RULES: Partial<Record<SchemaDialect, DialectRules>> = {
  '2.0': { booleanBounds: true, nullable: 'x-nullable', fileType: true, dropNullable: true },
  '3.0': { booleanBounds: true, nullable: 'nullable', fileType: false, dropNullable: false },
  '3.1': { booleanBounds: false, fileType: false, dropNullable: true },
  'draft-04': { booleanBounds: true, fileType: false, dropNullable: false },
};

/** Whether schemas of the dialect are rewritten before ajv reads them (see adaptOpenApiSchema). */
export const isAdaptedDialect = (dialect: SchemaDialect): boolean => RULES[dialect] !== undefined;

/**
 * The one translation of a dialect's schema into what ajv reads as the dialect means it (draft-07 for 2.0, 3.0 and
 * draft-04, 2020-12 for 3.1; 2020-12 and draft-07 schema files are returned as they are):
 * - the boolean `exclusiveMinimum`/`exclusiveMaximum` of draft 4 become the number forms (a `true` with no bound says
 *   nothing and goes);
 * - 3.0's `nullable: true` (2.0's `x-nullable`) adds `null` to `type` (a list, as 3.1 writes it). An `enum` still
 *   decides: null is one of its values only when it lists null (OpenAPI 3.0.3's reading of `nullable`). Beside no
 *   `type` (a `$ref` a cycle left, an `allOf`) it becomes "null, or else the schema", which ajv otherwise refuses;
 * - Swagger 2's `type: file` becomes no type (a file part is any value);
 * - `nullable` in 2.0 and 3.1, which have no such keyword, goes (3.1 writes `type: [T, 'null']`).
 * A `type` list in a 3.0 document (3.1's form) is read as draft-07 reads it. An unchanged object is returned as it is,
 * so that shared schemas stay shared; `memo` keeps each object's result (a document's schemas are adapted once,
 * whichever operation reaches them). Schemas ajv cannot read even so (a `type: file` in 3.0, a boolean bound in 3.1)
 * are left for ajv to refuse: a check of them cannot be compiled.
 */
export function adaptOpenApiSchema<S extends object | boolean>(
  schema: S,
  dialect: SchemaDialect,
  memo: WeakMap<object, unknown> = new WeakMap(),
): S {
  const rules = RULES[dialect];
  if (!rules || typeof schema !== 'object') return schema;
  return adaptValue(schema, rules, memo) as S;
}

function adaptMap(map: unknown, rules: DialectRules, memo: WeakMap<object, unknown>): unknown {
  if (!isJsonObject(map)) return map;
  let copy: JsonObject | undefined;
  for (const [name, value] of Object.entries(map)) {
    const adapted = adaptValue(value, rules, memo);
    if (adapted !== value) (copy ??= { ...map })[name] = adapted;
  }
  return copy ?? map;
}

function adaptValue(schema: unknown, rules: DialectRules, memo: WeakMap<object, unknown>): unknown {
  if (Array.isArray(schema)) {
    const items = schema.map((item) => adaptValue(item, rules, memo));
    return items.every((item, i) => item === schema[i]) ? schema : items;
  }
  if (!isJsonObject(schema)) return schema;
  const known = memo.get(schema);
  if (known !== undefined) return known;
  // A placeholder while its members are adapted: a shared object met again below itself is left as it is.
  memo.set(schema, schema);
  let copy: JsonObject | undefined;
  const change = (key: string, value: unknown): void => {
    copy ??= { ...schema };
    if (value === undefined) delete copy[key];
    else copy[key] = value;
  };
  for (const [key, value] of Object.entries(schema)) {
    if (value === null || typeof value !== 'object') continue;
    let adapted: unknown = value;
    if (SCHEMA_MAPS.has(key)) adapted = adaptMap(value, rules, memo);
    else if (!DATA.has(key) && !key.startsWith('x-')) adapted = adaptValue(value, rules, memo);
    if (adapted !== value) change(key, adapted);
  }
  if (rules.booleanBounds) {
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
  }
  if (rules.fileType && schema.type === 'file') change('type', undefined);
  if (rules.dropNullable && 'nullable' in schema) change('nullable', undefined);
  let result: JsonObject = copy ?? schema;
  const marker = rules.nullable;
  if (marker !== undefined && marker in result) {
    const { [marker]: nullable, ...rest } = result;
    result = rest;
    if (nullable === true) result = addNull(result);
  }
  memo.set(schema, result);
  return result;
}

/** A schema that takes null too, beside what it took (an `enum` that does not list null still refuses it). */
function addNull(schema: JsonObject): JsonObject {
  const { type } = schema;
  if (typeof type === 'string') return type === 'null' ? schema : { ...schema, type: [type, 'null'] };
  if (Array.isArray(type)) return type.includes('null') ? schema : { ...schema, type: [...type, 'null'] };
  if (Array.isArray(schema.enum)) return schema;
  // Not `anyOf`: a value that is not null then gets the errors of what it is, not "must match a schema in anyOf".
  return { if: { type: 'null' }, else: schema };
}
