import type { Writable } from 'node:stream';
import type { GatewayConfig } from '../config';
import {
  countDiagnostics,
  createSourceLocator,
  formatDiagnostic,
  formatPath,
  type Diagnostic,
  type SourceLocator,
} from '@restbus/openapi';
import type { ApiEndpoint } from '../openapi/endpoint';
import { readApis } from '../openapi/load-api';
import { createApiLinter } from '../openapi/create-api-linter';
import { locateProblems } from '../openapi/refuse-load';
import { readEndpointLimits } from '../rate-limits/compile-rate-limits';
import { compileRequestChecks } from '../validation/create-request-validator';
import { findMockWarnings } from '../mock/find-mock-warnings';
import { createReplyChecks } from '../replies/create-reply-checks';
import { findExampleWarnings } from '../replies/find-example-warnings';
import { assertSubjectPrefixes } from './assert-subject-prefixes';

/**
 * What --validate would refuse at start, as diagnostics: an error for each operation whose schemas cannot be compiled
 * (the words the gateway stops with), a warning for each one `unchecked` names. All are compiled at once first; only
 * when that fails is each compiled alone, so that every such operation is listed, not only the first.
 */
async function findUncheckableOperations(
  endpoints: readonly ApiEndpoint[],
  unchecked: readonly string[],
  locate: SourceLocator,
): Promise<Diagnostic[]> {
  const forwarded = endpoints.filter((endpoint) => !endpoint.model.static);
  const found: Array<{ endpoint: ApiEndpoint; severity: Diagnostic['severity']; message: string }> = [];
  const compileAlone = (endpoint: ApiEndpoint): void => {
    try {
      for (const message of compileRequestChecks([endpoint], { unchecked }).skipped) {
        found.push({ endpoint, severity: 'warning', message });
      }
    } catch (err) {
      // The line starts where the gateway's own does: the file and line go into the diagnostic's place instead.
      const message = err instanceof Error ? err.message : String(err);
      const spoken = `${endpoint.model.method.toUpperCase()} ${endpoint.model.path}: --validate cannot check it`;
      found.push({ endpoint, severity: 'error', message: message.slice(Math.max(0, message.indexOf(spoken))) });
    }
  };
  try {
    const { skipped } = compileRequestChecks(forwarded, { unchecked });
    // Rare (an opt-out in use): compiled again alone to tell which operation each line is about.
    if (skipped.length) forwarded.forEach(compileAlone);
  } catch {
    forwarded.forEach(compileAlone);
  }
  return Promise.all(
    found.map(async ({ endpoint, severity, message }) => {
      const { file, pointer } = endpoint.model.source;
      return { severity, file, ...(await locate(file, pointer)), path: formatPath(pointer), message };
    }),
  );
}

/**
 * `restbus-gateway --check`: the problems of the API descriptions a line each, as the gateway would log them at
 * start, then a summary; the exit code is 0 when the gateway would serve them, 1 when it would refuse.
 */
export async function checkApis(
  config: Pick<
    GatewayConfig,
    | 'restApiPath'
    | 'allowOutsideRefs'
    | 'strict'
    | 'topicPrefix'
    | 'inboxPrefix'
    | 'enableMocking'
    | 'validate'
    | 'validateUnchecked'
    | 'lintCache'
  >,
  out: Writable,
): Promise<number> {
  // A prefix the gateway would refuse at start is refused here too (exit 2), and each subject counts it.
  assertSubjectPrefixes(config);
  const { endpoints, diagnostics } = await readApis(config.restApiPath, {
    allowOutsideRefs: config.allowOutsideRefs,
    topicPrefix: config.topicPrefix,
    linter: createApiLinter({ cacheDir: config.lintCache }),
  });
  const locate = createSourceLocator();
  // A rate limit the gateway could not apply refuses the load, as it stops the gateway.
  diagnostics.push(...(await locateProblems(readEndpointLimits(endpoints).problems, locate)));
  // With --validate beside --check, an operation it could not check stops the check as it would stop the gateway.
  if (config.validate) {
    diagnostics.push(...(await findUncheckableOperations(endpoints, config.validateUnchecked ?? [], locate)));
  }
  // With -m beside --check, what the mock could not answer as described is said too, as a started gateway says it.
  if (config.enableMocking) {
    diagnostics.push(...(await findMockWarnings(endpoints, { locate })));
    // Examples their own schema refuses: -m would answer with them.
    const { checkers } = createReplyChecks(endpoints);
    diagnostics.push(...(await findExampleWarnings(endpoints, checkers, { locate, known: diagnostics })));
  }
  for (const diagnostic of diagnostics) {
    const promoted =
      config.strict && diagnostic.severity === 'warning' ? { ...diagnostic, severity: 'error' as const } : diagnostic;
    out.write(`${formatDiagnostic(promoted)}\n`);
  }
  const servable = !diagnostics.some(({ severity }) => severity === 'error' || config.strict);
  const files = config.restApiPath.length === 1 ? config.restApiPath[0] : `${config.restApiPath.length} files`;
  out.write(
    `${files}: ${countDiagnostics(diagnostics)}; ${
      servable ? `${endpoints.length} operation${endpoints.length === 1 ? '' : 's'} can be served` : 'cannot be served'
    }${config.strict ? ' (--strict: warnings refuse too)' : ''}\n`,
  );
  return servable ? 0 : 1;
}
