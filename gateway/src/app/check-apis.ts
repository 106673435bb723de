import type { Writable } from 'node:stream';
import type { GatewayConfig } from '../config';
import { countDiagnostics, createSourceLocator, formatDiagnostic } from '@restbus/openapi';
import { readApis } from '../openapi/load-api';
import { findMockWarnings } from '../mock/find-mock-warnings';
import { createReplyChecks } from '../replies/create-reply-checks';
import { findExampleWarnings } from '../replies/find-example-warnings';
import { assertSubjectPrefixes } from './assert-subject-prefixes';

/**
 * `restbus-gateway --check`: the problems of the API descriptions a line each, as the gateway would log them at
 * start, then a summary; the exit code is 0 when the gateway would serve them, 1 when it would refuse.
 */
export async function checkApis(
  config: Pick<
    GatewayConfig,
    'restApiPath' | 'allowOutsideRefs' | 'strict' | 'topicPrefix' | 'inboxPrefix' | 'enableMocking'
  >,
  out: Writable,
): Promise<number> {
  // A prefix the gateway would refuse at start is refused here too (exit 2), and each subject counts it.
  assertSubjectPrefixes(config);
  const { endpoints, diagnostics } = await readApis(config.restApiPath, {
    allowOutsideRefs: config.allowOutsideRefs,
    topicPrefix: config.topicPrefix,
  });
  // With -m beside --check, what the mock could not answer as described is said too, as a started gateway says it.
  if (config.enableMocking) {
    const locate = createSourceLocator();
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
