import { isJsonObject, type JsonObject } from '@restbus/infra';
import { copyThroughJson } from './copy-through-json';

const SCHEMAS = '#/components/schemas/';

const decode = (token: string): string => decodeURIComponent(token).replace(/~1/g, '/').replace(/~0/g, '~');
const encode = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

function resolvePointer(root: unknown, pointer: string): unknown {
  return pointer
    .slice(2)
    .split('/')
    .filter((token) => token !== '')
    .map(decode)
    .reduce<unknown>(
      // Own keys only: `__proto__` or `constructor` in a pointer is a schema's name, never Object's. An array's
      // items are its own keys too (`/parameters/0/schema`).
      (node, token) =>
        node !== null && typeof node === 'object' ? Object.getOwnPropertyDescriptor(node, token)?.value : undefined,
      root,
    );
}

/** A schema name from a pointer's last tokens (`nodes_get_200_schema`), unused in `taken`. */
function nameFor(pointer: string, taken: Set<string>): string {
  const tokens = pointer.slice(2).split('/').map(decode);
  const base =
    tokens
      .filter((token) => !['paths', 'content', 'responses', 'schema', 'components'].includes(token))
      .join('_')
      .replace(/[^A-Za-z0-9_]+/g, '_')
      .replace(/^_+|_+$/g, '') || 'Schema';
  let name = base;
  for (let n = 2; taken.has(name); n += 1) name = `${base}_${n}`;
  taken.add(name);
  return name;
}

/**
 * A copy of a dereferenced OpenAPI 3.x document in which every `$ref` left (a cycle's) points into
 * components/schemas: a target elsewhere (a path's response schema, a parameter's) is copied there under a new name.
 * openapi-typescript writes a `$ref` into a path as `paths[...]["content"]["application/json"]["schema"]`, a property
 * its own types do not have (enode.io's document); into components/schemas it writes a type it declares.
 */
export function hoistRefTargets(document: object): JsonObject {
  const copy = copyThroughJson(document);
  // A read document's components and schemas are objects when present (the OpenAPI schema says so).
  const components = isJsonObject(copy.components) ? copy.components : (copy.components = {});
  const schemas = isJsonObject(components.schemas) ? components.schemas : (components.schemas = {});
  const taken = new Set(Object.keys(schemas));
  const hoisted = new Map<string, string>();
  const visit = (node: unknown): void => {
    if (Array.isArray(node)) node.forEach(visit);
    else if (isJsonObject(node)) {
      const ref = node.$ref;
      if (typeof ref === 'string' && ref.startsWith('#/') && !ref.startsWith(SCHEMAS)) {
        if (resolvePointer(copy, ref) === undefined) return;
        let name = hoisted.get(ref);
        if (name === undefined) {
          name = nameFor(ref, taken);
          hoisted.set(ref, name);
        }
        node.$ref = `${SCHEMAS}${encode(name)}`;
      }
      Object.values(node).forEach(visit);
    }
  };
  visit(copy);
  // The targets after every `$ref` in them was rewritten: a cycle then runs through components/schemas.
  for (const [pointer, name] of hoisted) schemas[name] = resolvePointer(copy, pointer);
  if (hoisted.size === 0 && Object.keys(schemas).length === 0) delete components.schemas;
  if (Object.keys(components).length === 0) delete copy.components;
  return copy;
}
