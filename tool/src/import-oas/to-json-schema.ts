import type { Dialect } from '@restbus/openapi';
import { isJsonObject, type JsonObject } from '@restbus/infra';
import type { Refs } from './refs';

export const DRAFT_2020_12 = 'https://json-schema.org/draft/2020-12/schema';

export type Schema = JsonObject | boolean;

// The keywords whose values are schemas: a map of them, one, or a list. Everything else (examples, defaults,
// enums) is data and copied as it is, even when it holds a key named "$ref".
const SCHEMA_MAPS = ['properties', 'patternProperties', '$defs', 'definitions', 'dependentSchemas'];
const SCHEMA_VALUES = [
  'additionalProperties',
  'not',
  'if',
  'then',
  'else',
  'contains',
  'propertyNames',
  'unevaluatedItems',
  'unevaluatedProperties',
  'additionalItems',
  'contentSchema',
];
const SCHEMA_LISTS = ['allOf', 'anyOf', 'oneOf', 'prefixItems'];

/** Calls `visit` on every subschema of a schema (one level down). */
function forEachSubschema(schema: JsonObject, visit: (subschema: unknown) => void): void {
  for (const key of SCHEMA_MAPS) if (isJsonObject(schema[key])) Object.values(schema[key]).forEach(visit);
  for (const key of SCHEMA_VALUES) if (key in schema) visit(schema[key]);
  for (const key of SCHEMA_LISTS) if (Array.isArray(schema[key])) schema[key].forEach(visit);
  if (Array.isArray(schema.items)) schema.items.forEach(visit);
  else if ('items' in schema) visit(schema.items);
}

/** A copy of a schema with each subschema replaced by `map(subschema)`; other keywords are copied as data. */
function mapSubschemas(schema: JsonObject, map: (subschema: unknown) => unknown): JsonObject {
  const copy: JsonObject = {};
  for (const [key, value] of Object.entries(schema)) {
    if (SCHEMA_MAPS.includes(key) && isJsonObject(value)) {
      copy[key] = Object.fromEntries(Object.entries(value).map(([name, sub]) => [name, map(sub)]));
    } else if (SCHEMA_VALUES.includes(key)) copy[key] = map(value);
    else if ((SCHEMA_LISTS.includes(key) || key === 'items') && Array.isArray(value)) copy[key] = value.map(map);
    else if (key === 'items') copy[key] = map(value);
    else copy[key] = structuredClone(value);
  }
  return copy;
}

/**
 * OpenAPI 3.0's and Swagger 2.0's schema dialect in JSON Schema 2020-12 terms (what OpenAPI 3.1 and the mock
 * server's draft-2020 validator read): `nullable: true` (`x-nullable` in 2.0) is `null` among the types, a boolean
 * `exclusiveMinimum`/`exclusiveMaximum` turns its `minimum`/`maximum` into the number it excludes.
 */
function fromOpenApi30(schema: JsonObject): JsonObject {
  const copy = { ...schema };
  const nullable = copy.nullable === true || copy['x-nullable'] === true;
  if ('nullable' in copy) delete copy.nullable;
  if ('x-nullable' in copy) delete copy['x-nullable'];
  if (nullable) {
    if (typeof copy.type === 'string') copy.type = [copy.type, 'null'];
    if (Array.isArray(copy.enum) && !copy.enum.includes(null)) copy.enum = [...copy.enum, null];
  }
  for (const [exclusive, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (copy[exclusive] === true && typeof copy[bound] === 'number') {
      copy[exclusive] = copy[bound];
      delete copy[bound];
    } else if (typeof copy[exclusive] === 'boolean') delete copy[exclusive];
  }
  return copy;
}

/** The local pointers a schema's `$ref`s (and named schemas) name, without following them. */
function refsOf(schema: unknown, refs: Refs, found = new Set<string>()): Set<string> {
  if (!isJsonObject(schema)) return found;
  if (typeof schema.$ref === 'string') found.add(schema.$ref);
  forEachSubschema(schema, (subschema) => {
    // A named schema in place of its `$ref` (a dereferenced document) is that `$ref`.
    const named = refs.pointerOf(subschema);
    if (named === undefined) refsOf(subschema, refs, found);
    else found.add(named);
  });
  return found;
}

/** More schema objects than this in one inlined schema and it is written with `$defs` instead (repeated `$ref`s). */
const MAX_INLINED_NODES = 20_000;

class TooLarge extends Error {}

/** A `$defs` name from a pointer's last token: `#/components/schemas/Pet` is `Pet`. */
const toDefName = (pointer: string): string =>
  (pointer.split('/').pop() ?? '').replace(/[^A-Za-z0-9_.-]+/g, '_').replace(/^(__proto__|)$/, 'schema');

/**
 * A schema of the document as one self-contained JSON Schema 2020-12 document, for a `validationSchema` file:
 * every `$ref` inlined, but those on a cycle (a tree of nodes), which point into `$defs` of the file. A schema that
 * would grow too large inlined (the same schema referenced over and over) keeps all its `$ref`s in `$defs`.
 * Swagger 2.0 and OpenAPI 3.0 schemas are converted (see fromOpenApi30); next to a `$ref`, OpenAPI 3.1 keeps the
 * other keywords (a description) and 3.0 ignores them, as each specifies.
 */
export function toJsonSchema(schema: unknown, refs: Refs, dialect: Dialect): Schema {
  try {
    return build(schema, refs, dialect, false);
  } catch (err) {
    if (err instanceof TooLarge) return build(schema, refs, dialect, true);
    throw err;
  }
}

function build(schema: unknown, refs: Refs, dialect: Dialect, allInDefs: boolean): Schema {
  const edges = new Map<string, Set<string>>();
  const edgesOf = (pointer: string): Set<string> => {
    let found = edges.get(pointer);
    if (!found) {
      found = refsOf(refs.target(pointer), refs);
      edges.set(pointer, found);
    }
    return found;
  };
  /** Whether a pointer's schema leads back to itself through `$ref`s. */
  const cyclic = new Map<string, boolean>();
  const isCyclic = (pointer: string): boolean => {
    const known = cyclic.get(pointer);
    if (known !== undefined) return known;
    const seen = new Set<string>();
    const stack = [...edgesOf(pointer)];
    let found = false;
    let next: string | undefined;
    while (!found && (next = stack.pop()) !== undefined) {
      if (next === pointer) found = true;
      else if (!seen.has(next)) {
        seen.add(next);
        stack.push(...edgesOf(next));
      }
    }
    cyclic.set(pointer, found);
    return found;
  };

  const defNames = new Map<string, string>();
  const taken = new Set(isJsonObject(schema) && isJsonObject(schema.$defs) ? Object.keys(schema.$defs) : []);
  const pending: string[] = [];
  const defName = (pointer: string): string => {
    let name = defNames.get(pointer);
    if (!name) {
      const base = toDefName(pointer);
      name = base;
      for (let n = 2; taken.has(name); n++) name = `${base}-${n}`;
      taken.add(name);
      defNames.set(pointer, name);
      pending.push(pointer);
    }
    return name;
  };

  let nodes = 0;
  /** `asTarget`: the node is what a `$ref` names, emitted in its place (not named again). */
  const emit = (node: unknown, path: readonly string[], asTarget = false): unknown => {
    if (!isJsonObject(node)) return typeof node === 'boolean' ? node : structuredClone(node);
    // A named schema the dereferencer put in place of its `$ref` is written as that `$ref` would be.
    const named = asTarget ? undefined : refs.pointerOf(node);
    if (named !== undefined) return emit({ $ref: named }, path);
    if (++nodes > MAX_INLINED_NODES && !allInDefs) throw new TooLarge();
    const { $ref: ref, ...siblings } = node;
    if (typeof ref === 'string') {
      // OpenAPI 3.0 and Swagger 2.0 ignore what stands beside a $ref; 3.1 (JSON Schema 2020-12) applies it too.
      // The siblings are an object no dereferencer named: emitted, they are an object again.
      const emitted = dialect === '3.1' ? emit(siblings, path) : undefined;
      const beside = isJsonObject(emitted) ? emitted : {};
      if (allInDefs || isCyclic(ref) || path.includes(ref)) return { $ref: `#/$defs/${defName(ref)}`, ...beside };
      const target = emit(refs.target(ref), [...path, ref], true);
      return isJsonObject(target) ? { ...target, ...beside } : target;
    }
    const converted = dialect === '3.1' ? node : fromOpenApi30(node);
    return mapSubschemas(converted, (subschema) => emit(subschema, path));
  };

  const root = emit(schema, []);
  const defs: JsonObject = {};
  for (let pointer = pending.shift(); pointer !== undefined; pointer = pending.shift()) {
    defs[defName(pointer)] = emit(refs.target(pointer), [pointer], true);
  }
  if (typeof root === 'boolean') return root;
  // A document's schema is an object or a boolean: anything else was copied as data, and has no keywords to keep.
  const rootObject = isJsonObject(root) ? root : {};
  const withDefs = Object.keys(defs).length
    ? { ...rootObject, $defs: { ...(isJsonObject(rootObject.$defs) ? rootObject.$defs : {}), ...defs } }
    : rootObject;
  return { $schema: DRAFT_2020_12, ...withDefs };
}
