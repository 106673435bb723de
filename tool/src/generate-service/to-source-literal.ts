/**
 * A text as a TypeScript string literal: JSON's escaping, and the line and paragraph separators escaped too, which
 * JSON leaves raw (legal in a string since ES2019, but a line break to older tools and to whoever reads the file).
 */
export const toStringLiteral = (text: string): string =>
  JSON.stringify(text)
    .replace(/\u2028/g, '\\u2028')
    .replace(/\u2029/g, '\\u2029');

/**
 * An object key as TypeScript source: always a string literal, since every key a generator writes comes from a
 * document; `__proto__` computed (`["__proto__"]`), as in an object literal even the quoted key sets the prototype
 * instead of making a property.
 */
export const toObjectKey = (key: string): string =>
  key === '__proto__' ? `[${toStringLiteral(key)}]` : toStringLiteral(key);

/**
 * A JSON value as a TypeScript expression that evaluates to an equal value: strings by toStringLiteral, keys by
 * toObjectKey, so that a key `__proto__` is a property of its object as it is of JSON.parse's. Indented by two spaces
 * a level, as JSON.stringify(value, null, 2) would be.
 */
export function toSourceLiteral(value: unknown, indent = ''): string {
  if (typeof value === 'string') return toStringLiteral(value);
  if (value === null || typeof value !== 'object') return JSON.stringify(value) ?? 'null';
  const inner = `${indent}  `;
  if (Array.isArray(value)) {
    if (value.length === 0) return '[]';
    return `[\n${value.map((item: unknown) => `${inner}${toSourceLiteral(item, inner)}`).join(',\n')}\n${indent}]`;
  }
  const entries = Object.entries(value).filter(([, item]) => item !== undefined);
  if (entries.length === 0) return '{}';
  const lines = entries.map(([key, item]) => `${inner}${toObjectKey(key)}: ${toSourceLiteral(item, inner)}`);
  return `{\n${lines.join(',\n')}\n${indent}}`;
}
