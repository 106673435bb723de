import { isJsonObject } from '@restbus/infra';

/** The value at `path` in a parsed document, or undefined where the path leaves it. */
export function valueAt(data: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = data;
  for (const key of path) {
    if (Array.isArray(value)) {
      const items: unknown[] = value;
      // An item is named by its index, and only by its index written plainly ("1", not "01" or "length").
      const index = Number(key);
      value = String(index) === String(key) ? items[index] : undefined;
    } else if (isJsonObject(value)) value = value[String(key)];
    else return undefined;
  }
  return value;
}
