const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const OPEN = new Set([0x5b, 0x7b]); // [ {
const CLOSE = new Set([0x5d, 0x7d]); // ] }

/**
 * How deeply a JSON text nests its arrays and objects, read in one pass over the characters (strings skipped)
 * without parsing; stops as soon as it passes `limit` and answers `limit + 1`. Text that is not JSON gets a number
 * all the same: the parse that follows says what is wrong with it.
 */
export function measureJsonDepth(text: string, limit: number): number {
  let depth = 0;
  let deepest = 0;
  for (let i = 0; i < text.length; i += 1) {
    const code = text.charCodeAt(i);
    if (code === QUOTE) {
      for (i += 1; i < text.length; i += 1) {
        const inside = text.charCodeAt(i);
        if (inside === BACKSLASH) i += 1;
        else if (inside === QUOTE) break;
      }
    } else if (OPEN.has(code)) {
      depth += 1;
      if (depth > deepest) {
        deepest = depth;
        if (deepest > limit) return limit + 1;
      }
    } else if (CLOSE.has(code)) {
      depth -= 1;
    }
  }
  return deepest;
}
