import type { EndpointDesc } from '@restbus/infra';

/** An endpoint of a loaded API, with the file it came from (for messages about clashes). */
export interface ApiEndpoint {
  desc: EndpointDesc;
  file: string;
}

/** `{name}` parameters written the Express way, `:name`. */
export function toJsfUri(uri: string): string {
  return uri.replace(/\{([^}]+)\}/g, ':$1');
}
