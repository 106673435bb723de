import { setFlagsFromString } from 'node:v8';

/**
 * Lets V8 finish a regular expression that backtracks too much (50,000 backtracks by default) on its linear-time
 * engine, which gives the same answer: a schema's `pattern` such as `^(a+)+$` then checks a hostile string in
 * microseconds instead of holding the event loop for seconds (2^n steps for n characters). Process-wide, so only a
 * program's main calls it. V8's linear engine reads no lookarounds, backreferences or Unicode mode: patterns that use
 * them keep backtracking (see linearPatternEngine for the Unicode mode).
 */
export function allowLinearRegExpFallback(): void {
  setFlagsFromString('--enable-experimental-regexp-engine-on-excessive-backtracks');
}

// What only Unicode mode reads: code points above U+FFFF or outside ASCII, `\u{…}`, property escapes `\p{…}`.
const NEEDS_UNICODE = /[^\x20-\x7e]|\\u\{|\\[pP]\{/;

/**
 * ajv's `code.regExp`: a schema's `pattern` compiled in Unicode mode (ajv's default) only when it needs it, so that
 * V8's linear-time fallback (allowLinearRegExpFallback) can take it over; an ASCII pattern matches the same strings
 * in both modes but for characters above U+FFFF, which `.` or a negated class counts as two in the plain mode.
 */
export const linearPatternEngine = Object.assign(
  (pattern: string, flags: string): RegExp => {
    // Compiled as ajv would first: a pattern Unicode mode refuses is refused still (the plain mode refuses less).
    const compiled = new RegExp(pattern, flags);
    const plain = flags.replace('u', '');
    if (plain === flags || NEEDS_UNICODE.test(pattern)) return compiled;
    try {
      return new RegExp(pattern, plain);
    } catch {
      return compiled;
    }
  },
  { code: 'linearPatternEngine' },
);
