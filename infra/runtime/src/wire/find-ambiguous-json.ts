/**
 * What in a JSON text two readers may read differently: a name repeated in one object (JSON.parse keeps the last
 * value, other readers the first or an error), a number that reads as no finite number (`1e999` is Infinity, which
 * JSON cannot write back), and a number that reads as an integer it does not denote (`9007199254740993` reads as
 * ...992, `1.0000000000000001` as 1, `1e-400` as 0; up to 2^64, past which no reader takes a number for an exact
 * integer): a check that passes what it read passes what a client may not read. RFC 7493 (I-JSON) forbids the first and the second and warns against the third. `-0` reads as 0
 * everywhere it is compared, and passes.
 */
export interface JsonAmbiguity {
  kind: 'duplicate-name' | 'non-finite-number' | 'inexact-integer';
  /** Where it is: the repeated member or the number, as a JSON pointer (`` for the whole text). */
  pointer: string;
}

/** An object's names seen so far: a list while short (no allocation of a Set for small objects), then a Set. */
const SET_FROM = 16;

/** The numbers JSON.parse reads exactly without a closer look: up to 15 digits, an optional minus, nothing else. */
const PLAIN_INTEGER = /^-?\d{1,15}$/;
const NUMBER = /^-?(\d+)(?:\.(\d+))?(?:[eE]([+-]?\d+))?$/;

/** The integers some reader takes exactly: those of an int64 and a uint64. */
const INTEGER_RANGE = 2 ** 64;

/** More digits than an integer up to INTEGER_RANGE has: such a literal is not one. */
const MAX_INTEGER_DIGITS = 21;

/** Whether a number literal that reads as the integer `value` denotes exactly that integer (sign aside: it is read). */
function denotesExactly(literal: string, value: number): boolean {
  const parts = NUMBER.exec(literal);
  if (!parts) return false;
  let digits = parts[1] + (parts[2] ?? '');
  let exponent = Number(parts[3] ?? 0) - (parts[2]?.length ?? 0);
  let start = 0;
  while (start < digits.length && digits.charCodeAt(start) === 0x30) start++;
  let end = digits.length;
  while (end > start && digits.charCodeAt(end - 1) === 0x30) end--;
  if (end === start) return value === 0;
  exponent += digits.length - end;
  digits = digits.slice(start, end);
  if (exponent < 0 || digits.length + exponent > MAX_INTEGER_DIGITS) return false;
  return BigInt(digits) * 10n ** BigInt(exponent) === BigInt(Math.abs(value));
}

function judgeNumber(literal: string): JsonAmbiguity['kind'] | undefined {
  if (PLAIN_INTEGER.test(literal)) return undefined;
  const value = Number(literal);
  if (!Number.isFinite(value)) return 'non-finite-number';
  // Past 2^64 no reader takes a number for an exact integer (no int64 or uint64 holds it): a double, as the check.
  if (!Number.isInteger(value) || Math.abs(value) > INTEGER_RANGE) return undefined;
  // Most integers print back as written (up to 17 digits): then the literal is the double, without BigInt.
  return String(value) === literal || denotesExactly(literal, value) ? undefined : 'inexact-integer';
}

interface Frame {
  /** An array's next index, or -1 in an object. */
  index: number;
  /** In an object: the member being read (for the pointer) and the names read so far. */
  name: string;
  names: string[] | Set<string>;
}

const escapePointer = (key: string): string => key.replace(/~/g, '~0').replace(/\//g, '~1');

function pointerOf(stack: readonly Frame[]): string {
  return stack.map((frame) => `/${frame.index >= 0 ? frame.index : escapePointer(frame.name)}`).join('');
}

/**
 * The first ambiguity of a JSON text (see JsonAmbiguity), undefined when it has none. One pass over the text, no
 * value built; the names of each open object are kept (as much memory as the text at most). It reads valid JSON:
 * parse it first (what it says of a text JSON.parse refuses means nothing).
 */
export function findAmbiguousJson(text: string): JsonAmbiguity | undefined {
  const stack: Frame[] = [];
  // Whether the next string of the innermost object is a member's name (after `{` or `,`), not a value.
  let expectName = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x22) {
      const start = i;
      let escaped = false;
      for (i++; i < text.length; i++) {
        const inside = text.charCodeAt(i);
        if (inside === 0x5c) {
          escaped = true;
          i++;
        } else if (inside === 0x22) break;
      }
      if (!expectName) continue;
      expectName = false;
      const frame = stack[stack.length - 1];
      // `"a"` and `"\u0061"` are the same name.
      const name = escaped ? (JSON.parse(text.slice(start, i + 1)) as string) : text.slice(start + 1, i);
      frame.name = name;
      if (Array.isArray(frame.names)) {
        if (frame.names.includes(name)) return { kind: 'duplicate-name', pointer: pointerOf(stack) };
        frame.names.push(name);
        if (frame.names.length >= SET_FROM) frame.names = new Set(frame.names);
      } else {
        if (frame.names.has(name)) return { kind: 'duplicate-name', pointer: pointerOf(stack) };
        frame.names.add(name);
      }
    } else if (c === 0x7b) {
      stack.push({ index: -1, name: '', names: [] });
      expectName = true;
    } else if (c === 0x5b) {
      stack.push({ index: 0, name: '', names: [] });
    } else if (c === 0x7d || c === 0x5d) {
      stack.pop();
      expectName = false;
    } else if (c === 0x2c) {
      const frame = stack[stack.length - 1];
      if (frame.index >= 0) frame.index++;
      else expectName = true;
    } else if (c === 0x2d || (c >= 0x30 && c <= 0x39)) {
      const start = i;
      while (i + 1 < text.length && isNumberPart(text.charCodeAt(i + 1))) i++;
      const kind = judgeNumber(text.slice(start, i + 1));
      if (kind) return { kind, pointer: pointerOf(stack) };
    }
  }
  return undefined;
}

/** Digits, `.`, `e`, `E`, `+`, `-`: what a number literal is made of. */
const isNumberPart = (c: number): boolean =>
  (c >= 0x30 && c <= 0x39) || c === 0x2e || c === 0x65 || c === 0x45 || c === 0x2b || c === 0x2d;
