/**
 * Deeper than any API body needs, and far from where parsing, cloning or serialising it overflows the stack. Its own
 * module, below both the wire (which refuses deeper messages) and the error registry (which words the refusal).
 */
export const MAX_JSON_DEPTH = 64;
