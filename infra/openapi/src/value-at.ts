/** The value at `path` in a parsed document, or undefined where the path leaves it. */
export function valueAt(data: unknown, path: ReadonlyArray<string | number>): unknown {
  let value = data;
  for (const key of path) {
    if (typeof value !== 'object' || value === null) return undefined;
    // A cast, not @restbus/infra's isJsonObject: this module is part of the lint worker's light entry (./paths),
    // which must not load @restbus/infra and NATS under it (issue 45). An array's items are read by the same lookup.
    value = (value as Record<string, unknown>)[String(key)];
  }
  return value;
}
