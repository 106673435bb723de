/**
 * A path segment that mixes text and parameters (`{name}.json`, `v{major}-{minor}`): the literals around its
 * parameters, `literals.length === parameters + 1`, case-folded (foldCase).
 */
export interface SegmentPattern {
  literals: string[];
  /** The same for every spelling of one pattern: templates sharing a node share its pattern. */
  key: string;
}

const PARAMETER = /^\{[^}]+\}$/;

/** Whether a template segment is one parameter and nothing else (`{personId}`). */
export const isParameterSegment = (segment: string): boolean => PARAMETER.test(segment);

/**
 * One UTF-16 unit as a case-insensitive regular expression without the `u` flag compares it (ECMA-262
 * Canonicalize): upper case when that is one unit and does not turn a non-ASCII unit into ASCII. Folding unit by
 * unit keeps a string's length, so indices into the folded text are indices into the original.
 */
function foldUnit(code: number): number {
  if (code < 128) return code >= 97 && code <= 122 ? code - 32 : code;
  const upper = String.fromCharCode(code).toUpperCase();
  if (upper.length !== 1) return code;
  const folded = upper.charCodeAt(0);
  return folded < 128 ? code : folded;
}

/** A text case-folded as a case-insensitive regular expression compares it, one unit for one unit. */
export function foldCase(text: string): string {
  // eslint-disable-next-line no-control-regex
  if (/^[\x00-\x7f]*$/.test(text)) return text.toUpperCase();
  let folded = '';
  for (let i = 0; i < text.length; i++) folded += String.fromCharCode(foldUnit(text.charCodeAt(i)));
  return folded;
}

/** Compiles a template segment holding at least one `{` that is not a lone parameter. */
export function compileSegmentPattern(segment: string): SegmentPattern {
  // Split with a capture: literals and parameters alternate, an empty literal between adjacent parameters.
  const literals = segment
    .split(/(\{[^}]+\})/)
    .filter((_, i) => i % 2 === 0)
    .map(foldCase);
  return { literals, key: JSON.stringify(literals) };
}

/**
 * The parameter values of a decoded request segment that the pattern matches, or undefined. Each parameter is at
 * least one character and no `/`, and takes as little as it can, left to right, as the former `^([^/]+?)…$` did.
 * Taking the earliest occurrence of each literal never loses a match (the parameters after it only get more room),
 * so nothing is tried twice: one pass with indexOf, where that regular expression backtracked polynomially
 * (`{a}-{b}-{c}.json` against 2,000 dashes took half a second, each further parameter multiplying it).
 */
export function matchSegmentPattern(pattern: SegmentPattern, segment: string): string[] | undefined {
  const { literals } = pattern;
  const text = foldCase(segment);
  const last = literals.length - 1;
  if (last === 0) return text === literals[0] ? [] : undefined;
  if (segment.includes('/') || !text.startsWith(literals[0]) || !text.endsWith(literals[last])) return undefined;
  const end = text.length - literals[last].length;
  const values: string[] = [];
  let start = literals[0].length;
  for (let i = 1; i < last; i++) {
    const at = text.indexOf(literals[i], start + 1);
    if (at < 0) return undefined;
    values.push(segment.slice(start, at));
    start = at + literals[i].length;
  }
  if (start >= end) return undefined;
  values.push(segment.slice(start, end));
  return values;
}
