import { isDeepStrictEqual } from 'node:util';
import { isJsonObject, type JsonObject } from '@restbus/infra';

/** Keywords whose values are data, not schemas: a "$ref" key in an example is not a reference. */
const DATA_KEYWORDS = new Set(['example', 'examples', 'default', 'const', 'enum']);

/**
 * `components.schemas` of the document being written, shared by every schema file embedded in it: each a schema
 * file's definition as the file has it (an object, `true`, `false`).
 */
export type SchemaComponents = JsonObject;

const LOCAL_DEFINITION = /^#\/(\$defs|definitions)\/([^/]+)(.*)$/;

const decodeToken = (token: string): string => token.replace(/~1/g, '/').replace(/~0/g, '~');
const encodeToken = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

function rewriteRefs(value: unknown, rewrite: (ref: string) => string): unknown {
  if (Array.isArray(value)) return value.map((item) => rewriteRefs(item, rewrite));
  return isJsonObject(value) ? rewriteObjectRefs(value, rewrite) : value;
}

function rewriteObjectRefs(value: JsonObject, rewrite: (ref: string) => string): JsonObject {
  return Object.fromEntries(
    Object.entries(value).map(([key, item]) => {
      if (key === '$ref' && typeof item === 'string') return [key, rewrite(item)];
      return [key, DATA_KEYWORDS.has(key) ? item : rewriteRefs(item, rewrite)];
    }),
  );
}

/**
 * A schema file's schema as part of an OpenAPI document. Inside the document a `$ref` such as `#/$defs/Node` would
 * point at the document's root, not at the file's own `$defs`: the file's `$defs` (and draft-04 `definitions`) move
 * to `components.schemas` (renamed when another file's definition of that name differs) and its references to
 * them, or to the whole file (`#`), are rewritten to point there. A schema without local references is unchanged.
 */
export function embedSchema(schema: JsonObject, components: SchemaComponents, fileName: string): JsonObject {
  const { $defs, definitions, ...rest } = schema;
  const local: Record<string, Record<string, unknown>> = {
    $defs: isJsonObject($defs) ? $defs : {},
    definitions: isJsonObject(definitions) ? definitions : {},
  };
  let usesRoot = false;
  rewriteRefs(schema, (ref) => {
    if (ref === '#') usesRoot = true;
    return ref;
  });
  if (!Object.keys(local.$defs).length && !Object.keys(local.definitions).length && !usesRoot) return schema;

  const entries = Object.entries(local).flatMap(([keyword, defs]) =>
    Object.entries(defs).map(([name, definition]) => ({ key: `${keyword}/${name}`, name, definition })),
  );
  const safe = (name: string): string =>
    name === '__proto__' ? 'proto' : name.replace(/[^A-Za-z0-9._-]+/g, '_') || 'schema';
  const taken = (name: string): boolean => Object.hasOwn(components, name);
  const rewriterOf =
    (names: ReadonlyMap<string, string>, rootName: string | undefined) =>
    (ref: string): string => {
      if (ref === '#' && rootName) return `#/components/schemas/${encodeToken(rootName)}`;
      const match = LOCAL_DEFINITION.exec(ref);
      const name = match && names.get(`${match[1]}/${decodeToken(match[2])}`);
      return name ? `#/components/schemas/${encodeToken(name)}${match[3]}` : ref;
    };
  const contentOf = (names: ReadonlyMap<string, string>, rootName: string | undefined): Array<[string, unknown]> => {
    const rewrite = rewriterOf(names, rootName);
    // `names` has every entry's key: it is made of `entries`.
    const content = entries.flatMap(({ key, definition }): Array<[string, unknown]> => {
      const name = names.get(key);
      return name === undefined ? [] : [[name, rewriteRefs(definition, rewrite)]];
    });
    if (rootName) content.push([rootName, rewriteObjectRefs(rest, rewrite)]);
    return content;
  };
  // Each definition under its own name, shared with another file that has the very same one…
  let names = new Map(entries.map(({ key, name }) => [key, safe(name)]));
  let rootName = usesRoot ? safe(fileName.replace(/\.[^.]*$/, '')) : undefined;
  let content = contentOf(names, rootName);
  const fits =
    new Set(content.map(([name]) => name)).size === content.length &&
    content.every(([name, value]) => !taken(name) || isDeepStrictEqual(components[name], value));
  if (!fits) {
    // …else under a name of its own (`Node_2`).
    const used = new Set<string>();
    const claim = (wanted: string): string => {
      let name = safe(wanted);
      for (let n = 2; taken(name) || used.has(name); n++) name = `${safe(wanted)}_${n}`;
      used.add(name);
      return name;
    };
    names = new Map(entries.map(({ key, name }) => [key, claim(name)]));
    rootName = usesRoot ? claim(fileName.replace(/\.[^.]*$/, '')) : undefined;
    content = contentOf(names, rootName);
  }
  for (const [name, value] of content) components[name] = value;
  if (rootName) return { $ref: `#/components/schemas/${encodeToken(rootName)}` };
  return rewriteObjectRefs(rest, rewriterOf(names, rootName));
}
