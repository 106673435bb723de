import { RestbusError } from '@restbus/infra';
import type { Json } from './read-openapi';

export const isObject = (value: unknown): value is Json =>
  typeof value === 'object' && value !== null && !Array.isArray(value);

/** The `$ref`s of a bundled document: local JSON pointers (`#/components/schemas/Pet`) into it. */
export interface Refs {
  /** The value a `#/…` pointer names; throws when it names nothing. */
  target(ref: string): unknown;
  /** A parameter, response, example…: followed through its `$ref`s to the object itself. */
  follow(value: unknown): unknown;
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

export function createRefs(document: Json, shown: string): Refs {
  const target = (ref: string): unknown => {
    if (!ref.startsWith('#')) {
      throw new RestbusError('OPENAPI_INVALID', `${shown}: cannot resolve the $ref ${JSON.stringify(ref)}`);
    }
    let value: unknown = document;
    for (const token of ref.slice(1).split('/').slice(1).map(decodeToken)) {
      if (Array.isArray(value) && /^\d+$/.test(token)) value = value[Number(token)];
      else if (isObject(value) && Object.hasOwn(value, token)) value = value[token];
      else value = undefined;
      if (value === undefined) {
        throw new RestbusError('OPENAPI_INVALID', `${shown}: the $ref ${JSON.stringify(ref)} names nothing`);
      }
    }
    return value;
  };
  return {
    target,
    follow(value) {
      let current = value;
      const seen = new Set<string>();
      while (isObject(current) && typeof current.$ref === 'string') {
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
