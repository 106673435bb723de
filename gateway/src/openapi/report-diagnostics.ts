import type { Logger } from '@restbus/infra';
import { formatDiagnostic, type Diagnostic } from '@restbus/openapi';

/** One log line per problem: the message as `--check` prints it, the parts apart under `diagnostic`. */
export function reportDiagnostics(diagnostics: readonly Diagnostic[], logger: Logger): void {
  for (const diagnostic of diagnostics) {
    const level = diagnostic.severity === 'error' ? 'error' : 'warn';
    logger[level]({ diagnostic }, formatDiagnostic(diagnostic));
  }
}
