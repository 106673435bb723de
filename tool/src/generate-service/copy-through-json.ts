import { isJsonObject, RestbusError, type JsonObject } from '@restbus/infra';

/**
 * A deep copy of a document through JSON: a dereferenced document shares objects (a schema referenced twice is one
 * object), which the copy does not, so rewriting one place of it rewrites no other.
 */
export function copyThroughJson(document: object): JsonObject {
  const copy: unknown = JSON.parse(JSON.stringify(document));
  // Only an array is an object that comes back as no JSON object; no OpenAPI document is one.
  if (!isJsonObject(copy)) throw new RestbusError('OPENAPI_INVALID', 'an OpenAPI document is a JSON object');
  return copy;
}
