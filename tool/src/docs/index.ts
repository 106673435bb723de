// rest-tool docs --update: static HTML documentation of a project's services.
export { generateDocs } from './generate-docs';
export type { GenerateDocsOptions } from './generate-docs';
