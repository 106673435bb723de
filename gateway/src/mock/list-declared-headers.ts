import type { ApiResponse } from '@restbus/openapi';

/** A response header as the mock sends it: its name as declared, its schema, and its example if one is written. */
export interface DeclaredHeader {
  name: string;
  schema: unknown;
  example?: unknown;
}

/** The headers a response declares, in document order, each with its first example (the mock's answer). */
export function listDeclaredHeaders(response: ApiResponse): DeclaredHeader[] {
  return Object.entries(response.headers).map(([name, header]) => ({
    name,
    schema: header.schema,
    ...(header.examples.length > 0 && { example: header.examples[0].value }),
  }));
}
