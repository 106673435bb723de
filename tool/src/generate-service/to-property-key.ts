import { toStringLiteral } from './to-source-literal';

/**
 * A member's key in a TypeScript type, from a document's name (an operation's, a schema's): always a string literal,
 * so that no text of the document is ever an identifier. In a type, unlike an object literal, `"__proto__"` is a
 * member like any other.
 */
export const toPropertyKey = (name: string): string => toStringLiteral(name);
