import { isAlias, isMap, isNode, isPair, isScalar, isSeq, type Document, type Node } from 'yaml';

/** What a document would become once every alias is expanded, or why it must not be built at all. */
export type Measurement =
  | { ok: true; size: number }
  | {
      ok: false;
      offset: number;
      reason: 'too-large' | 'too-deep' | 'recursive' | 'too-many-aliases' | 'duplicate-key';
      anchor?: string;
    };

/** Deeper than any descriptor needs; far below where walking it (in the parser, in toJS, in a clone) overflows. */
export const MAX_YAML_DEPTH = 200;

/**
 * More aliases than a project file needs (a descriptor uses a handful). The yaml package resolves each alias by
 * scanning the anchors and aliases before it: 15,000 of them took 6 s in toJS, holding a running server.
 */
export const MAX_YAML_ALIASES = 1000;

interface Extent {
  /** Roughly the length of the node as JSON, aliases expanded. */
  size: number;
  /** Levels of maps and sequences in it, aliases expanded. */
  height: number;
}

class Stop {
  constructor(readonly measurement: Measurement & { ok: false }) {}
}

const offsetOf = (node: unknown): number => (isNode(node) ? (node.range?.[0] ?? 0) : 0);
const LEAF: Extent = { size: 4, height: 0 };

/**
 * Measures what a YAML document becomes once every alias is expanded (its size, roughly as JSON, and its depth)
 * without expanding anything: each anchored node is measured once and an alias adds what its anchor measured. An
 * alias bomb (one anchor aliased a thousand times, nested) is caught here at a cost linear in the file, before
 * `toJS`, `structuredClone` or `JSON.stringify` would build it; so is an alias inside the node it names
 * (`x: &a {y: *a}`), which has no finite expansion. `offset` is where the problem shows: the item that crosses
 * the limit, the level too deep, or the recursive alias.
 */
export function measureYamlDocument(document: Document, limit: number): Measurement {
  // The most recent anchor of each name so far, in document order (an alias names the nearest one before it).
  const anchors = new Map<string, Node>();
  const measured = new Map<Node, Extent>();
  const inProgress = new Set<Node>();
  let aliases = 0;

  function measure(node: unknown, depth: number): Extent {
    if (node === null || node === undefined) return LEAF;
    if (isPair(node)) {
      const key = measure(node.key, depth);
      const value = measure(node.value, depth);
      return { size: key.size + value.size + 1, height: Math.max(key.height, value.height) };
    }
    if (isAlias(node)) {
      if (++aliases > MAX_YAML_ALIASES)
        throw new Stop({ ok: false, offset: offsetOf(node), reason: 'too-many-aliases' });
      const target = anchors.get(node.source);
      if (target === undefined) return LEAF; // the parser reports an undefined alias, with its line
      if (inProgress.has(target)) {
        throw new Stop({ ok: false, offset: offsetOf(node), reason: 'recursive', anchor: node.source });
      }
      const extent = measured.get(target) ?? measure(target, depth);
      if (depth + extent.height > MAX_YAML_DEPTH) {
        throw new Stop({ ok: false, offset: offsetOf(node), reason: 'too-deep' });
      }
      return extent;
    }
    // Anything else in a parsed document is a node; a value that is none has no anchor and nothing inside.
    if (!isNode(node)) return LEAF;
    const { anchor } = node;
    if (anchor) anchors.set(anchor, node);
    let extent = LEAF;
    if (isScalar(node)) {
      const value = node.value;
      extent = { size: typeof value === 'string' ? value.length + 2 : String(value).length, height: 0 };
    } else if (isMap(node) || isSeq(node)) {
      if (depth >= MAX_YAML_DEPTH) throw new Stop({ ok: false, offset: offsetOf(node), reason: 'too-deep' });
      inProgress.add(node);
      let size = 2;
      let height = 0;
      // Duplicate keys are found here, in one pass with a set per map: the parser's own check (uniqueKeys) compares
      // each key with every earlier one, and a map of 30,000 keys took it 6 s.
      const keys = isMap(node) ? new Set<string>() : undefined;
      for (const item of node.items) {
        if (keys && isPair(item) && isScalar(item.key) && item.key.value !== '<<') {
          const key = String(item.key.value);
          if (keys.has(key)) throw new Stop({ ok: false, offset: offsetOf(item.key), reason: 'duplicate-key' });
          keys.add(key);
        }
        const inner = measure(item, depth + 1);
        size += inner.size + 1;
        height = Math.max(height, inner.height);
        if (size > limit) {
          throw new Stop({ ok: false, offset: offsetOf(isPair(item) ? item.value : item), reason: 'too-large' });
        }
      }
      inProgress.delete(node);
      extent = { size, height: height + 1 };
    }
    measured.set(node, extent);
    return extent;
  }

  try {
    const { size } = measure(document.contents, 0);
    return size > limit ? { ok: false, offset: 0, reason: 'too-large' } : { ok: true, size };
  } catch (err) {
    if (err instanceof Stop) return err.measurement;
    throw err;
  }
}

/**
 * Where the text nests deeper than `max`, or -1: flow collections (`[`, `{`) and block collections, by indentation and
 * opened on one line (`- - - x`, `? ? x`). The YAML parser recurses into both, and a 2 MiB file of nothing but `[[[[…` or `- - -…`
 * takes it seconds and then the whole heap (a fatal error no `catch` sees), so this cheap scan runs first. Quoted
 * scalars and comments are skipped; a quote only opens a scalar where a token may start, so `it's` does not hide
 * what follows. Brackets inside plain scalars count too: that can only refuse a file early, never let one by.
 */
export function findDeepNesting(text: string, max: number): number {
  let depth = 0;
  // Indentation columns of the block collections open at this point: one more level per deeper indent.
  const indents: number[] = [];
  let lineStart = true;
  for (let i = 0; i < text.length; i++) {
    if (lineStart) {
      lineStart = false;
      const start = i;
      while (text[i] === ' ') i++;
      const blank = i >= text.length || text[i] === '\n' || text[i] === '\r' || text[i] === '#';
      if (!blank && depth === 0) {
        const indent = i - start;
        while (indents.length > 0 && indents[indents.length - 1] >= indent) indents.pop();
        indents.push(indent);
        if (indents.length > max) return i;
      }
      let indicators = 0;
      while ('-?:'.includes(text[i]) && (text[i + 1] === ' ' || text[i + 1] === '\t')) {
        if (++indicators + indents.length + depth > max) return i;
        i += 2;
        while (text[i] === ' ') i++;
      }
      if (i >= text.length) break;
    }
    const char = text[i];
    const previous = i === 0 ? '\n' : text[i - 1];
    if (char === '\n') {
      lineStart = true;
    } else if (char === '#' && /\s/.test(previous)) {
      const end = text.indexOf('\n', i);
      if (end < 0) break;
      i = end;
      lineStart = true;
    } else if ((char === '"' || char === "'") && /[\s[{,:]/.test(previous)) {
      for (i++; i < text.length; i++) {
        if (char === '"' && text[i] === '\\') i++;
        else if (text[i] === char) {
          if (char === "'" && text[i + 1] === "'") i++;
          else break;
        }
      }
    } else if (char === '[' || char === '{') {
      if (++depth > max) return i;
    } else if ((char === ']' || char === '}') && depth > 0) {
      depth--;
    }
  }
  return -1;
}
