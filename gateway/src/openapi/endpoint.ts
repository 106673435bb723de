import type { EndpointDesc } from '@restbus/infra';
import type { ApiModel, ApiOperation } from '@restbus/openapi';

/** An endpoint of a loaded API, with the file it came from (for messages about clashes). */
export interface ApiEndpoint {
  desc: EndpointDesc;
  /** The typed model of the operation: what the gateway reads of it (no raw OpenAPI object travels past loading). */
  model: ApiOperation;
  /** The typed model of its document (`schemaRoot` resolves the `$ref`s a cycle left in its schemas). */
  api: ApiModel;
  file: string;
  /** easer's `x-static`: files under `contentPath` are served at the path, and the operation is never forwarded. */
  static?: { contentPath: string };
}

/** `{name}` parameters written the Express way, `:name`. */
export function toJsfUri(uri: string): string {
  return uri.replace(/\{([^}]+)\}/g, ':$1');
}
