import { constants } from 'node:fs';
import { open } from 'node:fs/promises';
import { readErrorCode, readErrorMessage } from '@restbus/infra';
import { LineCounter, isMap, isNode, isScalar, isSeq, parseDocument, type Document } from 'yaml';
import { MAX_YAML_ALIASES, MAX_YAML_DEPTH, findDeepNesting, measureYamlDocument } from './measure-yaml-document';

/** The largest YAML file read (a service descriptor is a few kilobytes; a bulk file a few hundred). */
export const MAX_YAML_FILE_BYTES = 2 * 1024 * 1024;
/** The most a document may become once its aliases are expanded (about its length as JSON). */
export const MAX_YAML_EXPANDED_BYTES = 8 * 1024 * 1024;

const MIB = 1024 * 1024;

export interface YamlFile {
  /** The file's name relative to the project, as messages show it. */
  name: string;
  value: unknown;
  /** About the length of `value` as JSON: what the document costs once its aliases are expanded. */
  expandedSize: number;
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

/** The text of a regular file of at most MAX_YAML_FILE_BYTES, or why not (a FIFO or a device would never end). */
async function readBoundedText(path: string): Promise<{ text: string } | { problem: string }> {
  let handle;
  try {
    // Non-blocking, so that opening a FIFO returns at once (and is then refused) instead of waiting for a writer.
    handle = await open(path, constants.O_RDONLY | constants.O_NONBLOCK);
  } catch (err) {
    const code = readErrorCode(err);
    return { problem: code === 'ENOENT' ? 'no such file' : code === 'EACCES' ? 'permission denied' : String(code) };
  }
  try {
    const stats = await handle.stat();
    if (!stats.isFile()) return { problem: 'not a regular file' };
    if (stats.size > MAX_YAML_FILE_BYTES) {
      return {
        problem: `the file has ${stats.size} bytes; a YAML file may have at most ${MAX_YAML_FILE_BYTES / MIB} MiB`,
      };
    }
    // Read no more than the limit even if the file grows between stat and read.
    const buffer = Buffer.alloc(MAX_YAML_FILE_BYTES + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    if (bytesRead > MAX_YAML_FILE_BYTES) {
      return { problem: `the file has more than ${MAX_YAML_FILE_BYTES / MIB} MiB, the most a YAML file may have` };
    }
    return { text: buffer.toString('utf8', 0, bytesRead) };
  } catch (err) {
    return { problem: readErrorCode(err) ?? 'read failed' };
  } finally {
    await handle.close();
  }
}

const EXPANSION_PROBLEMS = {
  'too-large': `the document grows past ${MAX_YAML_EXPANDED_BYTES / MIB} MiB once its aliases are expanded`,
  'too-deep': `the document nests more than ${MAX_YAML_DEPTH} levels deep`,
  recursive: 'an alias inside the node it names never ends',
  'too-many-aliases': `the document has more than ${MAX_YAML_ALIASES} aliases`,
  'duplicate-key': 'Map keys must be unique',
} as const;

/**
 * Reads a YAML file keeping node positions, so that a schema error can name its line. Anchors, aliases and merge
 * keys work; tags beyond plain data (`!!js/function`, and YAML 1.1's `!!binary`, `!!set`, `!!omap`, `!!timestamp`)
 * and duplicate keys are refused. The file, and what it becomes once its aliases are expanded, are bounded
 * (MAX_YAML_FILE_BYTES, MAX_YAML_EXPANDED_BYTES, MAX_YAML_DEPTH): past a bound the answer is a problem naming the
 * line, never an out-of-memory crash.
 */
export async function readYamlFile(path: string, name: string): Promise<ReadResult> {
  const read = await readBoundedText(path);
  if ('problem' in read) return { ok: false, problems: [`${name}: cannot read: ${read.problem}`] };
  const { text } = read;
  const lines = new LineCounter();
  const tooDeep = findDeepNesting(text, MAX_YAML_DEPTH);
  if (tooDeep >= 0) {
    const line = text.slice(0, tooDeep).split('\n').length;
    return { ok: false, problems: [`${name}:${line}: ${EXPANSION_PROBLEMS['too-deep']}`] };
  }
  let document: Document;
  try {
    document = parseDocument(text, {
      lineCounter: lines,
      merge: true,
      // Checked by measureYamlDocument in linear time (the parser's check is quadratic).
      uniqueKeys: false,
      prettyErrors: false,
      // YAML 1.1 tags would build Buffers, Sets, Maps and Dates: not plain data.
      resolveKnownTags: false,
    });
  } catch (err) {
    // Block collections indented level after level still make the parser recurse, into a RangeError.
    if (err instanceof RangeError) return { ok: false, problems: [`${name}:1: ${EXPANSION_PROBLEMS['too-deep']}`] };
    throw err;
  }
  const problems = [...document.errors, ...document.warnings].map((issue) => {
    const line = issue.linePos?.[0]?.line ?? lines.linePos(issue.pos[0]).line;
    const message =
      issue.code === 'TAG_RESOLVE_FAILED'
        ? `unsupported tag: ${issue.message}`
        : // The composer recurses per level of block indentation; it reports the overflow as an error of its own.
          /call stack/i.test(issue.message)
          ? EXPANSION_PROBLEMS['too-deep']
          : issue.message.split('\n')[0];
    return `${name}:${line}: ${message}`;
  });
  if (problems.length) return { ok: false, problems };
  const measurement = measureYamlDocument(document, MAX_YAML_EXPANDED_BYTES);
  if (!measurement.ok) {
    const anchor = measurement.anchor ? ` (*${measurement.anchor})` : '';
    return {
      ok: false,
      problems: [
        `${name}:${lines.linePos(measurement.offset).line}: ${EXPANSION_PROBLEMS[measurement.reason]}${anchor}`,
      ],
    };
  }
  let value: unknown;
  try {
    // The expansion is bounded by measureYamlDocument already; yaml's own alias count rescans the document.
    value = document.toJS({ maxAliasCount: -1 });
  } catch (err) {
    // An alias without its anchor (or an alias bomb) only shows when the document is built.
    const message = readErrorMessage(err);
    const alias = /: (\S+)$/.exec(message)?.[1];
    const offset = alias ? text.indexOf(`*${alias}`) : -1;
    return { ok: false, problems: [`${name}:${offset >= 0 ? lines.linePos(offset).line : 1}: ${message}`] };
  }
  return {
    ok: true,
    file: {
      name,
      value,
      expandedSize: measurement.size,
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
