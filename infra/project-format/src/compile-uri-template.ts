import { RestbusError } from '@restbus/infra';

/**
 * Compiles `serviceUrlPrefix + uriTemplate` into a matcher. `{name}` is one non-empty part of a path segment; the
 * rest is literal. Matching is case-insensitive with an optional trailing slash, as upstream's Express 3 routes
 * were, so existing clients keep working.
 *
 * It runs in linear time: a regular expression with several `([^/]+)` in one segment backtracks polynomially
 * (`/{a}-{b}-{c}` against 3,000 dashes and one more segment took 15 s, six parameters far longer), and every
 * request is matched against every route.
 */
export interface UriMatcher {
  /** Path parameters by name when the path matches, otherwise undefined. */
  match(path: string): Record<string, string> | undefined;
}

type Part = { literal: string } | { name: string };

/**
 * One segment of the template: literals around parameters, `literals.length === names.length + 1`, every literal
 * between two parameters non-empty (adjacent parameters are refused). Literals are kept case-folded.
 */
interface Segment {
  literals: string[];
  names: string[];
}

// ASCII only, so that folding never changes a string's length (indices stay valid in the original) and a path,
// which Node's parser only lets through as ASCII, folds as the former `i` flag did.
const fold = (text: string): string =>
  /[A-Z]/.test(text) ? text.replace(/[A-Z]+/g, (letters) => letters.toLowerCase()) : text;

/** Whether `path` from `start` to `end` is `literal` (folded), without copying the part out. */
function isLiteralAt(path: string, start: number, end: number, literal: string): boolean {
  if (end - start !== literal.length) return false;
  if (path.startsWith(literal, start)) return true;
  for (let i = 0; i < literal.length; i++) {
    let code = path.charCodeAt(start + i);
    if (code >= 65 && code <= 90) code += 32;
    if (code !== literal.charCodeAt(i)) return false;
  }
  return true;
}

const PARAMETER = /(\{[^}]*\})/;

function toParts(prefix: string, uriTemplate: string): Part[] {
  const parts: Part[] = [{ literal: prefix }];
  for (const piece of uriTemplate.split(PARAMETER)) {
    if (piece === '') continue;
    parts.push(/^\{[^}]*\}$/.test(piece) ? { name: piece.slice(1, -1) } : { literal: piece });
  }
  return parts;
}

/** Why a template cannot be matched, or undefined when it can: for the project checker and for compiling. */
export function findUriTemplateProblem(uriTemplate: string): string | undefined {
  const parts = toParts('', uriTemplate);
  for (let i = 1; i < parts.length; i++) {
    const [before, after] = [parts[i - 1], parts[i]];
    if ('name' in before && 'name' in after) {
      return (
        `the parameters {${before.name}} and {${after.name}} have nothing between them, so no path can say where ` +
        `one ends; put a literal between them, e.g. {${before.name}}-{${after.name}}`
      );
    }
  }
  return undefined;
}

function toSegments(parts: Part[]): Segment[] {
  const segments: Segment[] = [{ literals: [''], names: [] }];
  for (const part of parts) {
    const current = segments[segments.length - 1];
    if ('name' in part) {
      current.names.push(part.name);
      current.literals.push('');
      continue;
    }
    const [first, ...rest] = part.literal.split('/');
    current.literals[current.literals.length - 1] += fold(first);
    for (const piece of rest) segments.push({ literals: [fold(piece)], names: [] });
  }
  // `/users/` is served at `/users` too (the trailing slash is optional on both sides).
  const last = segments[segments.length - 1];
  if (segments.length > 1 && last.names.length === 0 && last.literals[0] === '') segments.pop();
  return segments;
}

const decode = (value: string): string => {
  try {
    return decodeURIComponent(value);
  } catch {
    return value;
  }
};

/**
 * Matches one path segment from its end: the last parameter takes the least it can, and so on leftwards, which
 * leaves the first parameter the most, as a greedy regular expression would. Taking the latest occurrence of each
 * literal never loses a match (what is left of it only grows, and the parameter before it absorbs the rest), so
 * there is nothing to backtrack: one pass with lastIndexOf.
 */
function matchSegment(segment: Segment, text: string, params: Record<string, string>): boolean {
  const { literals, names } = segment;
  const folded = fold(text);
  if (!folded.endsWith(literals[names.length])) return false;
  const ends: number[] = [];
  let end = folded.length - literals[names.length].length;
  for (let i = names.length - 1; i > 0; i--) {
    ends[i] = end;
    // The parameter after literal i is not empty.
    const from = end - 1 - literals[i].length;
    if (from < 0) return false;
    end = folded.lastIndexOf(literals[i], from);
    if (end < 0) return false;
  }
  if (end <= literals[0].length || !folded.startsWith(literals[0])) return false;
  ends[0] = end;
  let start = literals[0].length;
  for (let i = 0; i < names.length; i++) {
    params[names[i]] = decode(text.slice(start, ends[i]));
    start = ends[i] + literals[i + 1].length;
  }
  return true;
}

export function compileUriTemplate(prefix: string, uriTemplate: string): UriMatcher {
  const problem = findUriTemplateProblem(uriTemplate);
  if (problem) throw new RestbusError('PROJECT_INVALID', `uriTemplate ${uriTemplate}: ${problem}`);
  const segments = toSegments(toParts(prefix, uriTemplate));
  const last = segments.length - 1;
  return {
    // Segment by segment along the path, without splitting it: every request is tried against every route, and
    // most routes fail on their second or third segment.
    match(path) {
      let params: Record<string, string> | undefined;
      let start = 0;
      for (let i = 0; i <= last; i++) {
        let end = path.indexOf('/', start);
        if (end < 0) {
          if (i < last) return undefined;
          end = path.length;
        } else if (i === last && end !== path.length - 1) {
          // More segments than the template has; one trailing slash is allowed.
          return undefined;
        }
        const segment = segments[i];
        if (segment.names.length === 0) {
          if (!isLiteralAt(path, start, end, segment.literals[0])) return undefined;
        } else if (!matchSegment(segment, path.slice(start, end), (params ??= {}))) {
          return undefined;
        }
        start = end + 1;
      }
      return params ?? {};
    },
  };
}
