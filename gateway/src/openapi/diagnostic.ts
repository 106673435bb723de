// Moved to @restbus/openapi; re-exported until the gateway's other folders import it from there.
export {
  countDiagnostics,
  escapeControlCharacters,
  formatDiagnostic,
  formatPath,
  toPrintable,
  type Diagnostic,
} from '@restbus/openapi';
