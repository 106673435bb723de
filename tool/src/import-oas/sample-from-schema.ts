import { isJsonObject, type JsonObject } from '@restbus/infra';
import type { Schema } from './to-json-schema';

const BY_FORMAT: Record<string, string> = {
  'date-time': '2024-01-01T00:00:00Z',
  date: '2024-01-01',
  time: '00:00:00Z',
  email: 'user@example.com',
  uuid: '00000000-0000-4000-8000-000000000000',
  uri: 'https://example.com/',
  url: 'https://example.com/',
  hostname: 'example.com',
  ipv4: '192.0.2.1',
  ipv6: '2001:db8::1',
  byte: 'c3RyaW5n',
  password: 'password',
};

/** How deep a sample goes into nested objects and arrays before it stops (cyclic schemas end earlier). */
const MAX_DEPTH = 12;

const firstType = (type: unknown): string | undefined => {
  if (typeof type === 'string') return type;
  if (Array.isArray(type)) {
    const types = type.filter((item): item is string => typeof item === 'string');
    return types.find((item) => item !== 'null') ?? types[0];
  }
  return undefined;
};

function sampleString(schema: JsonObject): string {
  let text = (typeof schema.format === 'string' && BY_FORMAT[schema.format]) || 'string';
  const min = typeof schema.minLength === 'number' ? schema.minLength : 0;
  const max = typeof schema.maxLength === 'number' ? schema.maxLength : Infinity;
  if (text.length < min) text = text.padEnd(min, 'x');
  return text.length > max ? text.slice(0, max) : text;
}

function sampleNumber(schema: JsonObject, integer: boolean): number {
  const low =
    typeof schema.minimum === 'number'
      ? schema.minimum
      : typeof schema.exclusiveMinimum === 'number'
        ? schema.exclusiveMinimum + 1
        : undefined;
  const high =
    typeof schema.maximum === 'number'
      ? schema.maximum
      : typeof schema.exclusiveMaximum === 'number'
        ? schema.exclusiveMaximum - 1
        : undefined;
  let value = low ?? (high !== undefined && high < 0 ? high : 0);
  if (integer) value = Math.ceil(value);
  if (typeof schema.multipleOf === 'number' && schema.multipleOf > 0 && value % schema.multipleOf !== 0) {
    value = Math.ceil(value / schema.multipleOf) * schema.multipleOf;
  }
  return value;
}

/**
 * A value for a JSON Schema (as toJsonSchema writes them, `$ref`s into its `$defs`), built deterministically: the
 * schema's own `const`, first of `examples`, `example`, `default` or first of `enum` where it has one; else every
 * property of an object, one item of an array, the first of `oneOf`/`anyOf`, the merged `allOf`, and for scalars a
 * placeholder by type and format (`"string"`, `0` or the minimum, `true`, a date for `format: date`…). A schema
 * that refers to itself ends where it would repeat (an empty list, the property left out).
 */
export function sampleFromSchema(schema: Schema, root: Schema = schema): unknown {
  const defs = isJsonObject(root) && isJsonObject(root.$defs) ? root.$defs : {};
  const sample = (node: unknown, depth: number, open: readonly string[]): unknown => {
    if (!isJsonObject(node) || depth > MAX_DEPTH) return undefined;
    if ('const' in node) return structuredClone(node.const);
    if (Array.isArray(node.examples) && node.examples.length) return structuredClone(node.examples[0]);
    if (node.example !== undefined) return structuredClone(node.example);
    if (node.default !== undefined) return structuredClone(node.default);
    if (Array.isArray(node.enum) && node.enum.length) return structuredClone(node.enum[0]);
    if (typeof node.$ref === 'string') {
      const name = /^#\/\$defs\/(.+)$/.exec(node.$ref)?.[1];
      if (!name || open.includes(name)) return undefined;
      const { $ref: _ref, ...beside } = node;
      const target = sample(defs[name], depth, [...open, name]);
      const extra = Object.keys(beside).length ? sample(beside, depth, open) : undefined;
      return isJsonObject(target) && isJsonObject(extra) ? { ...target, ...extra } : (target ?? extra);
    }
    if (Array.isArray(node.allOf) && node.allOf.length) {
      const parts = node.allOf.map((part) => sample(part, depth, open));
      const { allOf: _allOf, ...rest } = node;
      const own = Object.keys(rest).some((key) => key === 'properties' || key === 'type')
        ? sample(rest, depth, open)
        : undefined;
      const all = [...parts, own].filter((part) => part !== undefined);
      if (all.every(isJsonObject)) return all.reduce<JsonObject>((merged, part) => Object.assign(merged, part), {});
      return all[0];
    }
    for (const key of ['oneOf', 'anyOf'] as const) {
      const options = node[key];
      if (Array.isArray(options)) {
        for (const option of options) {
          const value = sample(option, depth, open);
          if (value !== undefined) return value;
        }
      }
    }
    const type =
      firstType(node.type) ??
      (isJsonObject(node.properties) ? 'object' : 'items' in node || 'prefixItems' in node ? 'array' : undefined);
    switch (type) {
      case 'object': {
        const value: JsonObject = {};
        for (const [name, property] of Object.entries(isJsonObject(node.properties) ? node.properties : {})) {
          const item = sample(property, depth + 1, open);
          // defineProperty: a property named "__proto__" is a property like any other.
          if (item !== undefined)
            Object.defineProperty(value, name, { value: item, enumerable: true, writable: true, configurable: true });
        }
        return value;
      }
      case 'array': {
        if (Array.isArray(node.prefixItems)) {
          return node.prefixItems.map((item) => sample(item, depth + 1, open) ?? null);
        }
        if (Array.isArray(node.items)) return node.items.map((item) => sample(item, depth + 1, open) ?? null);
        const item = sample(node.items, depth + 1, open);
        return item === undefined ? [] : [item];
      }
      case 'string':
        return sampleString(node);
      case 'integer':
        return sampleNumber(node, true);
      case 'number':
        return sampleNumber(node, false);
      case 'boolean':
        return true;
      case 'null':
        return null;
      default:
        return undefined;
    }
  };
  const value = sample(schema, 0, []);
  return value === undefined ? {} : value;
}
