/** The value at `path` in a parsed document, or undefined where the path leaves it. */
export function valueAt(data: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = data;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    value = (value as Record<string, unknown>)[String(key)];
  }
  return value;
}
