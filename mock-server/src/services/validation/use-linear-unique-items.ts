import { _, str, type KeywordCxt, type KeywordDefinition } from 'ajv';
import type Ajv from 'ajv';
import type { default as Ajv2020 } from 'ajv/dist/2020';

/** Whether every object in `value` has its keys in sorted order: then JSON.stringify writes it canonically. */
function isInKeyOrder(value: object): boolean {
  if (Array.isArray(value)) {
    for (const element of value as unknown[]) {
      if (element !== null && typeof element === 'object' && !isInKeyOrder(element)) return false;
    }
    return true;
  }
  let previous: string | undefined;
  for (const key of Object.keys(value)) {
    if (previous !== undefined && !(previous < key)) return false;
    previous = key;
    const member = (value as Record<string, unknown>)[key];
    if (member !== null && typeof member === 'object' && !isInKeyOrder(member)) return false;
  }
  return true;
}

/** A copy of `value` whose objects have their keys inserted in sorted order. */
function sortKeys(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(sortKeys);
  if (value === null || typeof value !== 'object') return value;
  const record = value as Record<string, unknown>;
  const sorted: Record<string, unknown> = {};
  for (const key of Object.keys(record).sort()) {
    const member = sortKeys(record[key]);
    // Assigning `__proto__` would set the copy's prototype rather than add the member.
    if (key === '__proto__') Object.defineProperty(sorted, key, { value: member, enumerable: true });
    else sorted[key] = member;
  }
  return sorted;
}

/**
 * The JSON texts of a list's items, cut from the list's own JSON text at its top-level commas: one JSON.stringify of
 * the whole list is several times faster than one per item.
 */
function splitJsonList(text: string): string[] {
  const items: string[] = [];
  let depth = 0;
  let inString = false;
  let start = 1;
  for (let i = 1; i < text.length - 1; i++) {
    const code = text.charCodeAt(i);
    if (inString) {
      if (code === 0x5c) i++;
      else if (code === 0x22) inString = false;
    } else if (code === 0x22) inString = true;
    else if (code === 0x7b || code === 0x5b) depth++;
    else if (code === 0x7d || code === 0x5d) depth--;
    else if (code === 0x2c && depth === 0) {
      items.push(text.slice(start, i));
      start = i + 1;
    }
  }
  if (text.length > 2) items.push(text.slice(start, text.length - 1));
  return items;
}

/**
 * The indexes of the first two equal items `[earlier, later]`, or undefined when all differ, in one pass: each item
 * by its canonical JSON (object members in one order whatever order they came in, numbers as JSON writes them, so
 * `1.0` and `1`, `-0` and `0` are equal, and `1` and `"1"` are not) in a Map. Ajv's own check compares every pair of
 * objects: quadratic, 20,000 order lines (512 KB) took ten seconds, during which no other client was answered.
 */
export function findDuplicateItems(items: readonly unknown[]): [number, number] | undefined {
  // Keys are sorted only where they are not in order already.
  const texts = splitJsonList(JSON.stringify(isInKeyOrder(items) ? items : sortKeys(items)));
  const seen = new Map<string, number>();
  for (let i = 0; i < texts.length; i++) {
    const earlier = seen.get(texts[i]);
    if (earlier !== undefined) return [earlier, i];
    seen.set(texts[i], i);
  }
  return undefined;
}

/** `uniqueItems` as ajv defines it (same error, message and params), checked in time linear in the array. */
const linearUniqueItems: KeywordDefinition = {
  keyword: 'uniqueItems',
  type: 'array',
  schemaType: 'boolean',
  error: {
    message: ({ params: { i, j } }) => str`must NOT have duplicate items (items ## ${j} and ${i} are identical)`,
    params: ({ params: { i, j } }) => _`{i: ${i}, j: ${j}}`,
  },
  code(cxt: KeywordCxt) {
    const { gen, data, schema } = cxt;
    if (!schema) return;
    const find = gen.scopeValue('func', { ref: findDuplicateItems });
    const duplicate = gen.const('duplicate', _`${data}.length > 1 ? ${find}(${data}) : undefined`);
    cxt.setParams({ i: _`${duplicate}[1]`, j: _`${duplicate}[0]` });
    cxt.fail(_`${duplicate} !== undefined`);
  },
};

/** Replaces ajv's quadratic `uniqueItems` with the linear one; call before compiling any schema. */
export function useLinearUniqueItems<T extends Ajv | Ajv2020>(ajv: T): T {
  ajv.removeKeyword('uniqueItems');
  ajv.addKeyword(linearUniqueItems);
  return ajv;
}
