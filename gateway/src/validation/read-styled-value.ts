import type { ApiEncoding } from '@restbus/openapi';

/** What separates a list's items in a field written without `explode`, by style (a Map: `toString` is no style). */
const DELIMITERS: ReadonlyMap<string, string> = new Map([
  ['form', ','],
  ['spaceDelimited', ' '],
  ['pipeDelimited', '|'],
  ['tabDelimited', '\t'], // Swagger 2's tsv; no 3.x style
]);

/** Whether a schema's `type` (a name or, in 3.1, a list of names) allows `name`. */
export function allowsType(schema: unknown, name: string): boolean {
  const type = (schema as { type?: unknown } | null | undefined)?.type;
  return type === name || (Array.isArray(type) && type.includes(name));
}

const texts = (value: unknown): unknown[] => (Array.isArray(value) ? value : [value]);

/**
 * A URL-encoded field's value as its encoding's `style`/`explode` write it (OpenAPI 3.x, Swagger 2's
 * `collectionFormat` read as those): a list written unexploded is one text cut at its delimiter (`tags=a,b` is
 * `["a","b"]` with `explode: false`, `a b` with `spaceDelimited`, `a|b` with `pipeDelimited`); an object written
 * unexploded in the form style is its keys and values in turn (`color=R,100,G,200` is `{R: "100", G: "200"}`). An
 * exploded list is one field per item, as read already; `deepObject` is `color[R]=100`, read already. Any other
 * value, or a field with no encoding, is left as read: a comma in a string is the string's.
 */
export function readStyledValue(value: unknown, schema: unknown, encoding: ApiEncoding | undefined): unknown {
  if (encoding === undefined) return value;
  const style = encoding.style ?? 'form';
  const explode = encoding.explode ?? style === 'form';
  const delimiter = DELIMITERS.get(style);
  if (explode || delimiter === undefined) return value;
  const items = texts(value).flatMap((text) => (typeof text === 'string' ? text.split(delimiter) : [text]));
  if (allowsType(schema, 'array')) return items;
  if (style === 'form' && allowsType(schema, 'object') && typeof value === 'string') {
    // Keys and values in turn; a key without a value gets ''. Object.create(null): a key named __proto__ is a key.
    const object = Object.create(null) as Record<string, unknown>;
    for (let i = 0; i < items.length; i += 2) object[String(items[i])] = items[i + 1] ?? '';
    return object;
  }
  return value;
}
