import type { ErrorObject } from 'ajv';
import { toCanonicalJson } from './to-canonical-json';
import type { JsonObject } from '../json/is-json-object';

/**
 * What is used of an ajv instance (draft-07 or 2020-12): each program has its own copy of ajv, whose classes TypeScript
 * would not take for one another.
 */
interface KeywordHost {
  removeKeyword(keyword: string): unknown;
  // `never`: any ajv's addKeyword takes it; the definition below is ajv's function-keyword shape.
  addKeyword(definition: never): unknown;
}

type Check = ((data: unknown) => boolean) & { errors?: Array<Partial<ErrorObject>> };

const isOfType = (type: unknown, item: unknown): boolean => {
  switch (type) {
    case 'null':
      return item === null;
    case 'array':
      return Array.isArray(item);
    case 'object':
      return typeof item === 'object' && item !== null && !Array.isArray(item);
    case 'integer':
      return typeof item === 'number' && !(item % 1) && !Number.isNaN(item);
    default:
      return typeof item === type;
  }
};

/** The types `items` declares (with OpenAPI 3.0's `nullable`), as ajv reads them to pick its loop. */
function declaredItemTypes(parentSchema: JsonObject): unknown[] {
  const items = parentSchema.items;
  if (typeof items !== 'object' || items === null || Array.isArray(items)) return [];
  const { type, nullable } = items as JsonObject;
  const types: unknown[] = Array.isArray(type) ? [...(type as unknown[])] : type ? [type] : [];
  if (types.length > 0 && nullable === true && !types.includes('null')) types.push('null');
  return types;
}

const duplicate = (i: number, j: number): Array<Partial<ErrorObject>> => [
  {
    keyword: 'uniqueItems',
    message: `must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: { i, j },
  },
];

/** ajv's function-keyword definition of the linear check (see addLinearUniqueItems). */
const linearUniqueItems = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  errors: true,
  compile(unique: boolean, parentSchema: JsonObject) {
    const types = declaredItemTypes(parentSchema);
    const scalar = types.length > 0 && !types.some((type) => type === 'object' || type === 'array');
    const check: Check = (data) => {
      check.errors = undefined;
      if (!unique || !Array.isArray(data) || data.length < 2) return true;
      const seen = new Map<string, number>();
      if (scalar) {
        for (let i = data.length - 1; i >= 0; i -= 1) {
          const item: unknown = data[i];
          if (!types.some((type) => isOfType(type, item))) continue;
          const key = toCanonicalJson(item);
          const later = seen.get(key);
          if (later !== undefined) {
            check.errors = duplicate(i, later);
            return false;
          }
          seen.set(key, i);
        }
        return true;
      }
      let found: [number, number] | undefined;
      for (let i = 0; i < data.length; i += 1) {
        const key = toCanonicalJson(data[i]);
        const earlier = seen.get(key);
        if (earlier !== undefined) found = [i, earlier];
        seen.set(key, i);
      }
      if (!found) return true;
      check.errors = duplicate(...found);
      return false;
    };
    return check;
  },
};

/**
 * Replaces ajv's `uniqueItems`, which compares every pair of items with a deep equal when they may be objects or
 * arrays (8,000 objects: seconds), by one pass that keys each item by its canonical JSON: time and memory linear in
 * the array. The error is ajv's, word for word, naming the same pair of items ajv would name: for items of scalar
 * types the nearest later copy of the first repeated item from the end (ajv's hash loop, which skips items of other
 * types), otherwise the last item that repeats an earlier one and the nearest such earlier one (its pairwise loop).
 */
export function addLinearUniqueItems<T extends KeywordHost>(ajv: T): T {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(linearUniqueItems as never);
  return ajv;
}
