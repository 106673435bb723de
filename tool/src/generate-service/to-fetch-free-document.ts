import { isJsonObject, RestbusError, type JsonObject } from '@restbus/infra';
import { copyThroughJson } from './copy-through-json';

const SCHEMAS = '#/components/schemas/';

// A discriminator mapping's value that names a schema rather than a reference (OpenAPI's component name pattern).
const SCHEMA_NAME = /^[A-Za-z0-9._-]+$/;

const encode = (token: string): string => token.replace(/~/g, '~0').replace(/\//g, '~1');

/**
 * A copy of a dereferenced OpenAPI 3.x document in which the type generator finds nothing to fetch or read: it
 * resolves every `$ref`, discriminator mapping and example `externalValue` it meets (redocly's resolver) against its
 * own working folder and fetches URLs. So a `$ref` that survived the reader pointing anywhere but into the document
 * is refused; a mapping is rewritten to point into components/schemas (a schema's name) or dropped (a name no
 * schema has); an `externalValue` is dropped (no type is made of an example). Throws OPENAPI_INVALID naming every
 * `$ref` refused.
 */
export function toFetchFreeDocument(document: object): JsonObject {
  const copy = copyThroughJson(document);
  const components = isJsonObject(copy.components) ? copy.components : {};
  const schemas = isJsonObject(components.schemas) ? components.schemas : {};
  const refused: string[] = [];
  const visit = (node: unknown, path: string): void => {
    if (Array.isArray(node)) {
      node.forEach((item, at) => visit(item, `${path}/${at}`));
      return;
    }
    if (!isJsonObject(node)) return;
    const object = node;
    if (typeof object.$ref === 'string' && !object.$ref.startsWith('#')) {
      refused.push(`${path || '/'}: the $ref ${JSON.stringify(object.$ref)} points outside the document`);
    }
    if (typeof object.externalValue === 'string') delete object.externalValue;
    const { discriminator } = object;
    if (isJsonObject(discriminator) && isJsonObject(discriminator.mapping)) {
      object.discriminator = { ...discriminator, mapping: toLocalMapping(discriminator.mapping, schemas) };
    }
    for (const [key, value] of Object.entries(object)) visit(value, `${path}/${encode(key)}`);
  };
  visit(copy, '');
  if (refused.length > 0) {
    throw new RestbusError('OPENAPI_INVALID', `the type generator would fetch or read:\n${refused.join('\n')}`);
  }
  return copy;
}

/** A mapping whose values all point into the document: `#…` kept, a schema's name made a `$ref`, anything else dropped. */
function toLocalMapping(mapping: JsonObject, schemas: JsonObject): JsonObject {
  const local: JsonObject = {};
  for (const [value, target] of Object.entries(mapping)) {
    if (typeof target !== 'string') continue;
    const to = target.startsWith('#')
      ? target
      : SCHEMA_NAME.test(target) && Object.hasOwn(schemas, target)
        ? `${SCHEMAS}${encode(target)}`
        : undefined;
    if (to !== undefined) Object.defineProperty(local, value, { value: to, enumerable: true, writable: true });
  }
  return local;
}
