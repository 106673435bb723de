import {
  isCollection,
  isMap,
  isNode,
  isScalar,
  LineCounter,
  parseDocument,
  type Node,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';

/** A file's text as a YAML (and so JSON) parser reads it, keeping where each value is written. */
export interface SourceFile {
  readonly file: string;
  readonly text: string;
  /** 1-based line and column where the value at `path` starts, or the nearest part of it that exists. */
  locate(path: ReadonlyArray<string | number>): { line: number; column: number } | undefined;
}

/**
 * Parses lazily, on the first position asked for: most loads ask none. Aliases are not expanded (a position is
 * looked up by walking the path, never by resolving the whole document), so an alias bomb costs nothing here.
 */
export function readSourceFile(file: string, text: string): SourceFile {
  let parsed: { root: Node | null; lines: LineCounter } | undefined;
  const parse = () => {
    if (!parsed) {
      const lines = new LineCounter();
      const document = parseDocument(text, { lineCounter: lines, uniqueKeys: false });
      parsed = { root: document.contents, lines };
    }
    return parsed;
  };
  return {
    file,
    text,
    locate(path) {
      const { root, lines } = parse();
      let node: Node | null = root;
      // Where a mapping's value is named: its key, on the line a person looks for.
      let at = root?.range?.[0];
      for (const key of path) {
        if (!isCollection(node)) break;
        const step = findStep(node, key);
        if (!step) break;
        node = step.node;
        at = step.at;
      }
      if (at === undefined) return undefined;
      const { line, col } = lines.linePos(at);
      return { line, column: col };
    },
  };
}

/** The child at `key` and where it is named: the key of a mapping's pair, the start of a sequence's item. */
function findStep(collection: YAMLMap | YAMLSeq, key: string | number): { node: Node | null; at?: number } | undefined {
  if (isMap(collection)) {
    // YAML 1.2 reads `200:` as the number 200; the document's path names it "200".
    const pair = collection.items.find(
      (item) => String(isScalar(item.key) ? item.key.value : item.key) === String(key),
    );
    if (!pair) return undefined;
    const named = isScalar(pair.key) ? pair.key.range?.[0] : undefined;
    const value = isNode(pair.value) ? pair.value : null;
    return { node: value, at: named ?? value?.range?.[0] };
  }
  const item: unknown = collection.items[Number(key)];
  return isNode(item) ? { node: item, at: item.range?.[0] } : undefined;
}
