import type { EndpointDesc } from '@restbus/infra';
import type { ApiModel, ApiOperation } from '@restbus/openapi';

/** An endpoint of a loaded API, with the file it came from (for messages about clashes). */
export interface ApiEndpoint {
  desc: EndpointDesc;
  /** The typed model of the operation: what the gateway reads (the raw members below are on their way out). */
  model: ApiOperation;
  /** The typed model of its document (`schemaRoot` resolves the `$ref`s a cycle left in its schemas). */
  api: ApiModel;
  file: string;
  /** The dereferenced operation object, with the path item's parameters merged in, for request validation. */
  operation: Record<string, unknown>;
  /** The whole dereferenced document (shared by its endpoints): a cycle's `$ref`s are left in it and point there. */
  document: Record<string, unknown>;
  /** `2.0`, `3.0` or `3.1`: which schema dialect the operation's schemas speak. */
  dialect: '2.0' | '3.0' | '3.1';
  /** easer's `x-static`: files under `contentPath` are served at the path, and the operation is never forwarded. */
  static?: { contentPath: string };
}

/** `{name}` parameters written the Express way, `:name`. */
export function toJsfUri(uri: string): string {
  return uri.replace(/\{([^}]+)\}/g, ':$1');
}
