import { isDeepStrictEqual } from 'node:util';
import { Document, isMap, parseDocument, type DocumentOptions, type ParseOptions, type SchemaOptions } from 'yaml';
import { isJsonObject, type JsonObject } from '@restbus/infra';

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

const toData = (document: Document): JsonObject => {
  const data: unknown = document.toJS();
  return isJsonObject(data) ? data : {};
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
  // A map, as isMap said above: toJS makes it an object.
  const declared = isJsonObject(before.methods) ? before.methods : {};
  if (Object.hasOwn(declared, method)) throw new Error(`${name} declares ${method} already`);
  methods.set(document.createNode(method), document.createNode(descriptor));
  const result = document.toString({ lineWidth: 0, indent: indentOf(text) });
  const expected = { ...before, methods: { ...declared, [method]: descriptor } };
  if (!isDeepStrictEqual(toData(parse(result, name)), expected)) {
    throw new Error(`${name}: the edited file did not read back as the original plus ${method}`);
  }
  return result;
}
