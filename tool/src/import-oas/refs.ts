import { isJsonObject, RestbusError, type JsonObject } from '@restbus/infra';

/**
 * The `$ref`s of a document: local JSON pointers (`#/components/schemas/Pet`) into it. In a dereferenced document
 * only a cycle's `$ref`s are left, and a named schema is the same object wherever it was referenced.
 */
export interface Refs {
  /** The value a `#/…` pointer names; throws when it names nothing. */
  target(ref: string): unknown;
  /** A parameter, response, example…: followed through its `$ref`s to the object itself. */
  follow(value: unknown): unknown;
  /** The pointer of a named schema (`components.schemas`, `definitions`) when `value` is one, as a `$ref` names it. */
  pointerOf(value: unknown): string | undefined;
}

/** Named schemas by identity: the dereferencer puts the same object wherever a `$ref` named one. */
function indexNamedSchemas(document: JsonObject): Map<object, string> {
  const index = new Map<object, string>();
  const add = (holder: unknown, prefix: string): void => {
    if (!isJsonObject(holder)) return;
    for (const [name, schema] of Object.entries(holder)) {
      const pointer = `${prefix}/${name.replace(/~/g, '~0').replace(/\//g, '~1')}`;
      if (isJsonObject(schema) && !index.has(schema)) index.set(schema, pointer);
    }
  };
  add(isJsonObject(document.components) ? document.components.schemas : undefined, '#/components/schemas');
  add(document.definitions, '#/definitions');
  return index;
}

const decodeToken = (token: string): string => {
  let text = token;
  try {
    text = decodeURIComponent(token);
  } catch {
    // A pointer with a stray "%": taken as written.
  }
  return text.replace(/~1/g, '/').replace(/~0/g, '~');
};

export function createRefs(document: JsonObject, shown: string): Refs {
  const target = (ref: string): unknown => {
    if (!ref.startsWith('#')) {
      throw new RestbusError('OPENAPI_INVALID', `${shown}: cannot resolve the $ref ${JSON.stringify(ref)}`);
    }
    let value: unknown = document;
    for (const token of ref.slice(1).split('/').slice(1).map(decodeToken)) {
      if (Array.isArray(value) && /^\d+$/.test(token)) value = value[Number(token)];
      else if (isJsonObject(value) && Object.hasOwn(value, token)) value = value[token];
      else value = undefined;
      if (value === undefined) {
        throw new RestbusError('OPENAPI_INVALID', `${shown}: the $ref ${JSON.stringify(ref)} names nothing`);
      }
    }
    return value;
  };
  let named: Map<object, string> | undefined;
  return {
    target,
    pointerOf(value) {
      named ??= indexNamedSchemas(document);
      return isJsonObject(value) ? named.get(value) : undefined;
    },
    follow(value) {
      let current = value;
      const seen = new Set<string>();
      while (isJsonObject(current) && typeof current.$ref === 'string') {
        if (seen.has(current.$ref)) {
          throw new RestbusError('OPENAPI_INVALID', `${shown}: the $ref ${JSON.stringify(current.$ref)} names itself`);
        }
        seen.add(current.$ref);
        current = target(current.$ref);
      }
      return current;
    },
  };
}
