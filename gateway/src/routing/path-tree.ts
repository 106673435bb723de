import { compileSegmentPattern, isParameterSegment, matchSegmentPattern, type SegmentPattern } from './segment-pattern';

/** A node of the path tree: one path segment deeper than its parent. */
interface PathNode<T> {
  statics: Map<string, PathNode<T>>;
  /** Segments that mix text and parameters, such as `{name}.json`. */
  patterns: Array<{ pattern: SegmentPattern; node: PathNode<T> }>;
  param?: PathNode<T>;
  value?: T;
}

export interface PathMatch<T> {
  value: T;
  /** The parameter values in template order; names are the caller's (templates sharing a node may differ). */
  values: string[];
}

const createNode = <T>(): PathNode<T> => ({ statics: new Map(), patterns: [] });

/** Splits a path into segments, dropping the leading empty one and a trailing slash. */
export function splitPath(path: string): string[] {
  const segments = path.split('/');
  segments.shift();
  if (segments.length > 1 && segments[segments.length - 1] === '') segments.pop();
  return segments;
}

/**
 * Path templates (`/persons/{personId}`) compiled once into a tree, matched per request without regular
 * expressions (a segment mixing text and parameters in one pass: matchSegmentPattern). Static segments match
 * case-insensitively and a trailing slash is ignored, as Express (and so upstream easer) does by default.
 */
export class PathTree<T> {
  private readonly root: PathNode<T> = createNode();

  /** Returns the value stored for the template, creating it with `create` the first time. */
  upsert(template: string, create: () => T): T {
    let node = this.root;
    for (const segment of splitPath(template)) node = this.child(node, segment);
    node.value ??= create();
    return node.value;
  }

  private child(node: PathNode<T>, segment: string): PathNode<T> {
    if (isParameterSegment(segment)) {
      node.param ??= createNode();
      return node.param;
    }
    if (segment.includes('{')) {
      const pattern = compileSegmentPattern(segment);
      const existing = node.patterns.find((known) => known.pattern.key === pattern.key);
      if (existing) return existing.node;
      const created = { pattern, node: createNode<T>() };
      node.patterns.push(created);
      return created.node;
    }
    const key = segment.toLowerCase();
    let next = node.statics.get(key);
    if (!next) {
      next = createNode();
      node.statics.set(key, next);
    }
    return next;
  }

  /** Matches decoded path segments; static segments win over parameters. */
  match(segments: readonly string[]): PathMatch<T> | undefined {
    const values: string[] = [];
    const node = this.walk(this.root, segments, 0, values);
    return node?.value === undefined ? undefined : { value: node.value, values };
  }

  private walk(
    node: PathNode<T>,
    segments: readonly string[],
    index: number,
    values: string[],
  ): PathNode<T> | undefined {
    if (index === segments.length) return node.value ? node : undefined;
    const segment = segments[index];
    const byText = node.statics.get(segment.toLowerCase());
    if (byText) {
      const found = this.walk(byText, segments, index + 1, values);
      if (found) return found;
    }
    for (const { pattern, node: next } of node.patterns) {
      const parts = matchSegmentPattern(pattern, segment);
      if (!parts) continue;
      const depth = values.length;
      values.push(...parts);
      const found = this.walk(next, segments, index + 1, values);
      if (found) return found;
      values.length = depth;
    }
    if (node.param && segment !== '') {
      values.push(segment);
      const found = this.walk(node.param, segments, index + 1, values);
      if (found) return found;
      values.pop();
    }
    return undefined;
  }
}
