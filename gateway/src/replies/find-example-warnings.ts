import type { ApiEndpoint } from '../openapi/endpoint';
import { formatPath, type Diagnostic, type SourceLocator } from '@restbus/openapi';
import type { ReplyChecker } from './create-reply-checks';

/** How many of an example's problems its warning names. */
const NAMED_PROBLEMS = 3;

export interface ExampleWarningOptions {
  /** Places each warning in its file; without it they name only the path. */
  locate?: SourceLocator;
  /**
   * Warnings already given (the linter's): an example one of them is at or under is not warned of twice. The
   * linter checks examples too, but leaves some out (its own limits, a lint given up); this check uses the schemas
   * as the gateway compiles them for replies, so what it says is what `--validateReplies` would say.
   */
  known?: readonly Diagnostic[];
}

/**
 * `-m` answers with the examples written in the document: each one that breaks its own schema is a load warning
 * (file:line:col), so the mock never answers what the contract forbids without saying so. Every response's every
 * JSON example is checked, not only the one answered by default: a request can ask for any.
 */
export async function findExampleWarnings(
  endpoints: readonly ApiEndpoint[],
  checkers: ReadonlyMap<ApiEndpoint, ReplyChecker>,
  options: ExampleWarningOptions = {},
): Promise<Diagnostic[]> {
  const known = (options.known ?? []).map(({ file, path }) => `${file}\n${path}`);
  const warnings: Array<{ diagnostic: Diagnostic; parts: Array<string | number> }> = [];
  for (const endpoint of endpoints) {
    const checker = checkers.get(endpoint);
    if (!checker) continue;
    const { model } = endpoint;
    for (const response of model.responses) {
      for (const [type, media] of Object.entries(response.content)) {
        for (const example of media.examples) {
          const problems = checker.checkValue(response.status, type, example.value);
          if (problems.length === 0) continue;
          const written =
            endpoint.api.dialect === '2.0'
              ? ['examples', type]
              : example.name === 'default'
                ? ['content', type, 'example']
                : ['content', type, 'examples', example.name, 'value'];
          const parts = [...model.source.pointer, 'responses', response.key, ...written];
          const path = formatPath(parts);
          const key = `${endpoint.file}\n${path}`;
          if (known.some((other) => other === key || other.startsWith(`${key}.`))) continue;
          const named = problems
            .slice(0, NAMED_PROBLEMS)
            .map(({ pointer, message }) => `${pointer || '/'} ${message}`)
            .join('; ');
          const more = problems.length > NAMED_PROBLEMS ? ` (and ${problems.length - NAMED_PROBLEMS} more)` : '';
          warnings.push({
            diagnostic: {
              severity: 'warning',
              file: endpoint.file,
              path,
              message: `the example does not match its schema, and -m answers with it: ${named}${more}`,
            },
            parts,
          });
        }
      }
    }
  }
  const diagnostics: Diagnostic[] = [];
  for (const { diagnostic, parts } of warnings) {
    const position = options.locate ? await options.locate(diagnostic.file, parts) : undefined;
    diagnostics.push(position ? { ...diagnostic, ...position } : diagnostic);
  }
  return diagnostics;
}
