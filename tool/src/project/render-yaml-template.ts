import { isDeepStrictEqual } from 'node:util';
import { isNode, LineCounter, Scalar, parse, parseDocument, visit, type Document } from 'yaml';
import { RestbusError } from '@restbus/infra';

export type TemplateValues = Readonly<Record<string, string>>;

const PLACEHOLDER = /\{\{\s*(\w+)\s*\}\}/g;

/** Replaces `{{key}}` with its value in one pass (a value containing `{{…}}` stays as it is); unknown keys stay. */
export function fillPlaceholders(text: string, values: TemplateValues): string {
  return text.replace(PLACEHOLDER, (whole, key: string) => (Object.hasOwn(values, key) ? values[key] : whole));
}

export interface RenderedYaml {
  document: Document;
  /** The scalars that received user text: the ones whose quoting the writer may have to change. */
  filled: Scalar[];
}

/**
 * Fills a YAML template by editing its parsed document rather than its text, so that no value can break the YAML
 * around it (upstream pasted `orders: v2` into `name: {{name}}` and wrote a file the server could not read).
 * Placeholders are filled in string values and in comments; anchors, aliases and comments stay.
 */
export function renderYamlTemplate(text: string, values: TemplateValues, name: string): RenderedYaml {
  const lines = new LineCounter();
  const document = parseDocument(text, { lineCounter: lines, prettyErrors: false });
  if (document.errors.length) {
    const [error] = document.errors;
    throw new RestbusError(
      'PROJECT_INVALID',
      `${name}:${lines.linePos(error.pos[0]).line}: the template is not valid YAML: ${error.message.split('\n')[0]}`,
    );
  }
  // A comment is one line: a value with a newline would end it and start YAML.
  const oneLine = Object.fromEntries(Object.entries(values).map(([key, value]) => [key, value.replace(/\s+/g, ' ')]));
  const fillComment = (comment: string | null | undefined): string | undefined =>
    comment ? fillPlaceholders(comment, oneLine) : (comment ?? undefined);
  document.commentBefore = fillComment(document.commentBefore) ?? null;
  document.comment = fillComment(document.comment) ?? null;
  const filled: Scalar[] = [];
  visit(document, (key, node) => {
    // Nodes carry the comments; a pair's are on its key and value.
    if (isNode(node) && node.commentBefore) node.commentBefore = fillComment(node.commentBefore);
    if (isNode(node) && node.comment) node.comment = fillComment(node.comment);
    if (key === 'key' || !(node instanceof Scalar) || typeof node.value !== 'string') return;
    const value = fillPlaceholders(node.value, values);
    if (value === node.value) return;
    node.value = value;
    // Block scalars stay block scalars; other quoting is chosen again for the new text.
    if (node.type !== Scalar.BLOCK_LITERAL && node.type !== Scalar.BLOCK_FOLDED) node.type = undefined;
    filled.push(node);
  });
  return { document, filled };
}

/**
 * The document as text, proven to read back as the same data. Should the writer's choice of quoting not round-trip
 * some text, the filled values are written double-quoted (which can hold any string) and checked again.
 */
export function stringifyYaml({ document, filled }: RenderedYaml, name: string): string {
  const expected: unknown = document.toJS();
  const write = (): string | undefined => {
    const text = document.toString({ lineWidth: 0 });
    try {
      return isDeepStrictEqual(parse(text), expected) ? text : undefined;
    } catch {
      return undefined;
    }
  };
  const text = write();
  if (text !== undefined) return text;
  for (const node of filled) node.type = Scalar.QUOTE_DOUBLE;
  const quoted = write();
  if (quoted !== undefined) return quoted;
  throw new RestbusError('INTERNAL', `${name}: the generated YAML does not read back as the given values`);
}
