import { isDeepStrictEqual } from 'node:util';
import {
  Document,
  isMap,
  isScalar,
  isSeq,
  parseDocument,
  type DocumentOptions,
  type ParseOptions,
  type SchemaOptions,
} from 'yaml';

// The recorder's edits of a project's YAML files, made on the parsed document (service.yml) or on the text
// (config.yml), so that comments, anchors, quoting and layout stay as they were. Each result is read back and
// must be the original plus the addition, else the edit throws and nothing is written.

/** As the project loader reads: merge keys, no YAML 1.1 tags. */
const READ_OPTIONS: ParseOptions & DocumentOptions & SchemaOptions = {
  merge: true,
  resolveKnownTags: false,
  prettyErrors: false,
};

function parse(text: string, name: string): Document {
  const document = parseDocument(text, READ_OPTIONS);
  if (document.errors.length)
    throw new Error(`${name} is not valid YAML: ${document.errors[0].message.split('\n')[0]}`);
  return document;
}

const toData = (document: Document): Record<string, unknown> => {
  const data: unknown = document.toJS();
  return data && typeof data === 'object' ? (data as Record<string, unknown>) : {};
};

/** The indentation the file's first nested line uses (2 when none says). */
function indentOf(text: string): number {
  const indent = /^\n?( +)[^\s#-]/m.exec(text.replace(/^[^\n]*\n/, '\n'))?.[1].length ?? 2;
  return indent >= 1 && indent <= 8 ? indent : 2;
}

/** A new service.yml: `data` with a comment above it. */
export function renderServiceFile(comment: string, data: Record<string, unknown>): string {
  const document = new Document(data);
  document.commentBefore = comment;
  const text = document.toString({ lineWidth: 0 });
  if (!isDeepStrictEqual(toData(parse(text, 'service.yml')), data))
    throw new Error('the service.yml does not read back');
  return text;
}

/** The methods a service.yml text declares (empty when it has none or does not parse). */
export function declaredMethods(text: string): string[] {
  try {
    const methods = toData(parseDocument(text, READ_OPTIONS)).methods;
    return methods && typeof methods === 'object' ? Object.keys(methods) : [];
  } catch {
    return [];
  }
}

/** The service.yml text with `method` added at the end of its `methods` (which must not declare it yet). */
export function addMethod(text: string, name: string, method: string, descriptor: Record<string, unknown>): string {
  const document = parse(text, name);
  const methods = document.get('methods', true);
  if (!isMap(methods)) throw new Error(`${name} has no methods map`);
  const before = toData(document);
  if (Object.hasOwn((before.methods as object | null) ?? {}, method))
    throw new Error(`${name} declares ${method} already`);
  methods.set(document.createNode(method), document.createNode(descriptor));
  const result = document.toString({ lineWidth: 0, indent: indentOf(text) });
  const expected = { ...before, methods: { ...(before.methods as object), [method]: descriptor } };
  if (!isDeepStrictEqual(toData(parse(result, name)), expected)) {
    throw new Error(`${name}: the edited file did not read back as the original plus ${method}`);
  }
  return result;
}

/** A list item as YAML: plain when that reads back as the same string, else double-quoted (JSON). */
const toItem = (entry: string, flow: boolean): string =>
  (flow ? /^\/[\w./~-]*$/ : /^\/[\w./~()@+=-]*$/).test(entry) ? entry : JSON.stringify(entry);

/**
 * The config.yml text with `entry` at the end of its `services` list, touching nothing else: comments, quoting,
 * indentation and line endings stay. The list may be a block list or a flow list (`[…]`).
 */
export function appendServiceEntry(text: string, entry: string): string {
  const document = parse(text, 'config.yml');
  const before = toData(document);
  const list = document.get('services', true);
  if (!isSeq(list) || !list.range) throw new Error('services is not a list written in config.yml');
  const eol = text.includes('\r\n') ? '\r\n' : '\n';
  let result: string;
  if (list.flow) {
    const close = text.lastIndexOf(']', list.range[1]);
    const head = text.slice(0, close).trimEnd();
    const separator = head.endsWith('[') || head.endsWith(',') ? '' : ', ';
    result = `${text.slice(0, head.length)}${separator}${toItem(entry, true)}${text.slice(head.length)}`;
  } else {
    const last = list.items[list.items.length - 1];
    if (!isScalar(last) || !last.range) throw new Error('the last services entry in config.yml is not a plain value');
    // The new item lines up with the last one's "-".
    let dash = last.range[0] - 1;
    while (dash >= 0 && text[dash] !== '-') dash -= 1;
    const lineStart = text.lastIndexOf('\n', dash) + 1;
    const indent = text.slice(lineStart, dash);
    if (!/^[ ]*$/.test(indent)) throw new Error('the services list of config.yml is not laid out one item per line');
    let lineEnd = text.indexOf('\n', last.range[1]);
    if (lineEnd < 0) lineEnd = text.length;
    else if (text[lineEnd - 1] === '\r') lineEnd -= 1;
    result = `${text.slice(0, lineEnd)}${eol}${indent}- ${toItem(entry, false)}${text.slice(lineEnd)}`;
  }
  const expected = { ...before, services: [...(before.services as string[]), entry] };
  if (!isDeepStrictEqual(toData(parse(result, 'config.yml')), expected)) {
    throw new Error('config.yml did not read back as the original plus the new service');
  }
  return result;
}
