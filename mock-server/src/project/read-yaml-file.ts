import { readFile } from 'node:fs/promises';
import { LineCounter, isMap, isNode, isScalar, isSeq, parseDocument, type Document } from 'yaml';

export interface YamlFile {
  /** The file's name relative to the project, as messages show it. */
  name: string;
  value: unknown;
  /** The 1-based line of the node at a JSON pointer (or of its closest existing parent). */
  lineOf(pointer: string): number;
}

export type ReadResult = { ok: true; file: YamlFile } | { ok: false; problems: string[] };

function toPath(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((token) => token.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Reads a YAML file keeping node positions, so that a schema error can name its line. Anchors, aliases and merge
 * keys work; tags beyond plain data (`!!js/function` and the like) and duplicate keys are refused.
 */
export async function readYamlFile(path: string, name: string): Promise<ReadResult> {
  let text: string;
  try {
    text = await readFile(path, 'utf8');
  } catch (err) {
    const reason = (err as NodeJS.ErrnoException).code === 'ENOENT' ? 'no such file' : (err as Error).message;
    return { ok: false, problems: [`${name}: cannot read: ${reason}`] };
  }
  const lines = new LineCounter();
  const document: Document = parseDocument(text, {
    lineCounter: lines,
    merge: true,
    uniqueKeys: true,
    prettyErrors: false,
  });
  const problems = [...document.errors, ...document.warnings].map((issue) => {
    const line = issue.linePos?.[0]?.line ?? lines.linePos(issue.pos[0]).line;
    const message =
      issue.code === 'TAG_RESOLVE_FAILED' ? `unsupported tag: ${issue.message}` : issue.message.split('\n')[0];
    return `${name}:${line}: ${message}`;
  });
  if (problems.length) return { ok: false, problems };
  let value: unknown;
  try {
    value = document.toJS({ maxAliasCount: 1000 });
  } catch (err) {
    // An alias without its anchor (or an alias bomb) only shows when the document is built.
    const message = (err as Error).message;
    const alias = /: (\S+)$/.exec(message)?.[1];
    const offset = alias ? text.indexOf(`*${alias}`) : -1;
    return { ok: false, problems: [`${name}:${offset >= 0 ? lines.linePos(offset).line : 1}: ${message}`] };
  }
  return {
    ok: true,
    file: {
      name,
      value,
      lineOf(pointer) {
        // The line of the key (or sequence item) at the end of the path: where a reader looks for the problem.
        let path = toPath(pointer);
        for (;;) {
          if (path.length === 0) return 1;
          const parent = path.length > 1 ? document.getIn(path.slice(0, -1), true) : document.contents;
          const last = path[path.length - 1];
          if (isMap(parent)) {
            const pair = parent.items.find(
              (item) => (isScalar(item.key) ? String(item.key.value) : String(item.key)) === last,
            );
            const node = pair && (isNode(pair.key) ? pair.key : pair.value);
            if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
          } else if (isSeq(parent)) {
            const node = parent.items[Number(last)];
            if (isNode(node) && node.range) return lines.linePos(node.range[0]).line;
          }
          path = path.slice(0, -1);
        }
      },
    },
  };
}
