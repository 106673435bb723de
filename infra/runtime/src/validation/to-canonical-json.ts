import { isJsonObject, type JsonObject } from '../json/is-json-object';

type Step = { value: unknown } | { text: string };

/** An object with its keys in sorted order (itself when they are); no prototype, so `__proto__` stays a key. */
function sortKeys(_key: string, value: unknown): unknown {
  if (!isJsonObject(value)) return value;
  const keys = Object.keys(value);
  let sorted = true;
  for (let i = 1; i < keys.length && sorted; i += 1) sorted = keys[i - 1] < keys[i];
  if (sorted) return value;
  keys.sort();
  const copy: JsonObject = Object.create(null);
  for (const key of keys) copy[key] = value[key];
  return copy;
}

/** The same text, written with an explicit stack: for values nested deeper than JSON.stringify can recurse. */
function toCanonicalJsonIteratively(root: unknown): string {
  const out: string[] = [];
  const stack: Step[] = [{ value: root }];
  while (stack.length > 0) {
    const step = stack.pop()!;
    if ('text' in step) {
      out.push(step.text);
      continue;
    }
    const { value } = step;
    if (Array.isArray(value)) {
      out.push('[');
      stack.push({ text: ']' });
      for (let i = value.length - 1; i >= 0; i -= 1) {
        stack.push({ value: value[i] });
        if (i > 0) stack.push({ text: ',' });
      }
    } else if (isJsonObject(value)) {
      const keys = Object.keys(value).sort();
      out.push('{');
      stack.push({ text: '}' });
      for (let i = keys.length - 1; i >= 0; i -= 1) {
        stack.push({ value: value[keys[i]] });
        stack.push({ text: `${i > 0 ? ',' : ''}${JSON.stringify(keys[i])}:` });
      }
    } else {
      out.push(JSON.stringify(value) ?? 'null');
    }
  }
  return out.join('');
}

/**
 * A JSON value as text that is the same for equal values (object keys sorted, `-0` as `0`), so that equality is a
 * string comparison and a hash lookup. JSON.stringify writes it (several times faster than JavaScript can); a value
 * nested too deeply for its recursion is written iteratively instead.
 */
export function toCanonicalJson(value: unknown): string {
  try {
    if (Array.isArray(value)) {
      // An array with no object inside has no key order to settle: JSON.stringify without a replacer, called for
      // every value, writes it in a third of the time.
      const plain = JSON.stringify(value);
      if (!plain.includes('{')) return plain;
    }
    return JSON.stringify(value, sortKeys) ?? 'null';
  } catch (err) {
    if (err instanceof RangeError) return toCanonicalJsonIteratively(value);
    throw err;
  }
}
