import { convertObj } from 'swagger2openapi';
import { hoistRefTargets } from './hoist-ref-targets';
import { toFetchFreeDocument } from './to-fetch-free-document';
import { TypeRenderer } from './type-renderer';

// One renderer for the process, made at the first render: openapi-typescript and the TypeScript compiler load once
// (2 s of CPU), not once per document.
let shared: TypeRenderer | undefined;
const renderer = (): TypeRenderer => (shared ??= new TypeRenderer());

/**
 * The TypeScript of a document's schemas, parameters, bodies and responses, as openapi-typescript writes it
 * (`paths`, `components`, `operations`), from a document in which nothing is left to fetch or read
 * (toFetchFreeDocument). openapi-typescript reads OpenAPI 3.0 and 3.1; a Swagger 2.0 document is
 * converted to 3.0 by swagger2openapi first (its paths and methods stay as they are, so `paths[path][method]`
 * still names each operation).
 */
export async function renderTypes(document: Record<string, unknown>): Promise<string> {
  if (document.swagger !== '2.0') return renderer().render(toFetchFreeDocument(hoistRefTargets(document)));
  // A copy through JSON (toFetchFreeDocument's): the dereferenced document shares objects, which swagger2openapi
  // refuses as YAML anchors. swagger2openapi resolves nothing outside the document unless asked (`resolve`).
  const copy = toFetchFreeDocument(document);
  const converted = await convertObj(copy, { patch: true, warnOnly: true });
  return renderer().render(toFetchFreeDocument(hoistRefTargets(converted.openapi)));
}
