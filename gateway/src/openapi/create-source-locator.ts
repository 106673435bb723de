// Moved to @restbus/openapi; re-exported until the gateway's other folders import it from there.
export { createSourceLocator, type SourceLocator } from '@restbus/openapi';
