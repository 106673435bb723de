import { RestbusError } from '@restbus/infra';
import type { LoadLimits } from './load-limits';

type Node = Record<string, unknown> | unknown[];

/** Where a `$ref` leads: the value, and the URL of its file (the base of the `$refs` inside it). */
export interface RefTarget {
  value: unknown;
  url: string;
}

export interface ExpansionInput {
  /** The API file as given, for messages. */
  file: string;
  /** The parsed document, `$refs` not yet resolved. */
  document: unknown;
  /** The URL of the document's file, the base of its relative `$refs`. */
  url: string;
  /** Resolves a `$ref` written in the file at `base`; undefined when it cannot (the parser reports that later). */
  resolveRef(ref: string, base: string): RefTarget | undefined;
  limits: Pick<LoadLimits, 'expandedNodes' | 'depth'>;
}

interface Frame {
  node: Node;
  url: string;
  keys: string[];
  next: number;
  total: number;
  /** The key under which the parent holds this node (a JSON pointer token). */
  key: string;
  /** The `$ref` this node was reached through, and the `$ref` object, which then takes its size. */
  via?: { text: string; object: object };
}

const isNode = (value: unknown): value is Node => typeof value === 'object' && value !== null;

/** The same `$refs` the parser follows: JSON pointers and other files, not anchors (`#name`). */
function refText(value: Node): string | undefined {
  const ref = '$ref' in value ? value.$ref : undefined;
  if (Array.isArray(value) || typeof ref !== 'string' || ref === '') return undefined;
  return ref === '#' || ref.startsWith('#/') || !ref.startsWith('#') ? ref : undefined;
}

function sizeOfLeaf(value: unknown): number {
  return typeof value === 'string' ? 1 + Math.floor(value.length / 64) : 1;
}

function escapeToken(token: string): string {
  return token.replace(/~/g, '~0').replace(/\//g, '~1');
}

function describeWhere(stack: readonly Frame[]): string {
  const pointer = stack
    .slice(1)
    .map((frame) => `/${escapeToken(frame.key)}`)
    .join('');
  if (pointer === '') return '/';
  return pointer.length > 240 ? `${pointer.slice(0, 120)}…${pointer.slice(-120)}` : pointer;
}

/**
 * Measures the document as it will be once every `$ref` and YAML alias is expanded (the parser's dereferencing,
 * the schema validation and every later walk over it cost that much), without expanding it: each object's
 * expanded size is computed once and remembered. Refuses a document above `limits.expandedNodes` nodes or nested
 * deeper than `limits.depth` levels, naming the file and the `$ref` that repeats the most. A `$ref` back into
 * one of its own ancestors counts as one node, as the parser leaves it unresolved.
 *
 * Iterative rather than recursive: a deeply nested document must not overflow the stack here.
 */
export function assertBoundedExpansion({ file, document, url, resolveRef, limits }: ExpansionInput): void {
  if (!isNode(document)) return;
  const sizes = new Map<object, number>();
  const open = new Set<object>();
  const stack: Frame[] = [];

  const fail = (what: string): never => {
    const via = [...stack].reverse().find((frame) => frame.via);
    const through = via
      ? `, through the $ref "${via.via!.text}" at ${describeWhere(stack.slice(0, stack.indexOf(via) + 1))}`
      : '';
    throw new RestbusError('OPENAPI_INVALID', `${file}: ${what}, at ${describeWhere(stack)}${through}`);
  };

  /** Adds a known size to the top frame, or opens a frame for a node still to measure. */
  const visit = (value: unknown, base: string, key: string): void => {
    const parent = stack[stack.length - 1];
    let target: unknown = value;
    let targetUrl = base;
    let via: Frame['via'];
    if (isNode(value)) {
      const known = sizes.get(value);
      if (known !== undefined) return add(parent, known);
      const text = refText(value);
      if (text !== undefined) {
        const resolved = resolveRef(text, base);
        if (!resolved) return add(parent, 1);
        ({ value: target, url: targetUrl } = resolved);
        via = { text, object: value };
      }
    }
    if (!isNode(target)) {
      if (via) sizes.set(via.object, sizeOfLeaf(target));
      return add(parent, sizeOfLeaf(target));
    }
    const known = sizes.get(target);
    if (known !== undefined) {
      if (via) sizes.set(via.object, known);
      return add(parent, known);
    }
    if (open.has(target)) return add(parent, 1);
    open.add(target);
    stack.push({ node: target, url: targetUrl, keys: Object.keys(target), next: 0, total: 1, key, via });
    if (stack.length > limits.depth)
      fail(`nests deeper than the limit of ${limits.depth} levels once its $refs are resolved`);
  };

  const add = (frame: Frame | undefined, size: number): void => {
    if (!frame) return;
    frame.total += size;
    if (frame.total > limits.expandedNodes) {
      fail(
        `expands to more than the limit of ${limits.expandedNodes} nodes once its $refs and YAML aliases are resolved`,
      );
    }
  };

  visit(document, url, '');
  while (stack.length > 0) {
    const frame = stack[stack.length - 1];
    if (frame.next < frame.keys.length) {
      const key = frame.keys[frame.next++];
      visit(Array.isArray(frame.node) ? frame.node[Number(key)] : frame.node[key], frame.url, key);
      continue;
    }
    stack.pop();
    open.delete(frame.node);
    sizes.set(frame.node, frame.total);
    if (frame.via) sizes.set(frame.via.object, frame.total);
    add(stack[stack.length - 1], frame.total);
  }
}
