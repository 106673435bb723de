import type { ApiOperation } from './api-model';
import { checkPathTemplate } from './check-path-template';
import { checkStream } from './check-stream';
import { checkSubject } from './check-subject';
import { formatPath, type Diagnostic } from './diagnostic';
import type { ApiDescription } from './read-api-description';
import { checkSubjectLength } from './subject-limits';

export interface CheckedRoutes {
  /** The operations that can be routed, in document order. */
  operations: ApiOperation[];
  /** Why the others cannot, each an error. */
  diagnostics: Diagnostic[];
}

/**
 * Which operations of a description can be served over NATS: a path template that makes a subject (no control
 * character, wildcard or empty token), an `x-restbus-subject` that is one, an
 * `x-restbus-stream` that can be served (see checkStream), a subject short enough for nats-server's protocol line, an `x-static` with
 * its folder. A description with no paths, or no operation and no other error, is an error too: there is nothing
 * to serve. What the gateway and a generated service both need before they route.
 */
export function checkRoutes({ model, document, source, diagnostics: found }: ApiDescription): CheckedRoutes {
  const diagnostics: Diagnostic[] = [];
  if (!model || !document) return { operations: [], diagnostics };
  const error = (path: Array<string | number>, message: string): void => {
    diagnostics.push({ severity: 'error', file: model.file, ...source?.locate(path), path: formatPath(path), message });
  };
  const paths = document.paths;
  if (typeof paths !== 'object' || paths === null || Array.isArray(paths)) {
    error(paths === undefined ? [] : ['paths'], 'describes no paths: there is nothing to serve');
    return { operations: [], diagnostics };
  }
  const operations: ApiOperation[] = [];
  const refused = new Set<string>();
  for (const operation of model.operations) {
    const { path, method } = operation;
    const problem = checkPathTemplate(path);
    if (problem) {
      if (!refused.has(path)) error(['paths', path], problem);
      refused.add(path);
      continue;
    }
    const staticContent = operation.extensions['x-static'];
    if (staticContent !== undefined && !operation.static) {
      error(
        ['paths', path, method, 'x-static'],
        'needs a contentPath, the folder to serve (relative to --staticContentBasePath)',
      );
      continue;
    }
    // An x-static operation is served from its folder and has no subject.
    if (!operation.static && Object.hasOwn(operation.extensions, 'x-restbus-subject')) {
      const wrong = checkSubject(operation.extensions['x-restbus-subject']);
      if (wrong) {
        error(['paths', path, method, 'x-restbus-subject'], wrong);
        continue;
      }
    }
    if (Object.hasOwn(operation.extensions, 'x-restbus-stream')) {
      const wrong = checkStream(operation, operation.extensions['x-restbus-stream']);
      if (wrong) {
        error(['paths', path, method, 'x-restbus-stream', ...(wrong.property ? [wrong.property] : [])], wrong.message);
        continue;
      }
    }
    const { subject } = operation;
    const tooLong =
      !operation.static && checkSubjectLength(subject, `the subject ${[...subject].slice(0, 48).join('')}…`);
    if (tooLong) {
      error(['paths', path, method], tooLong);
      continue;
    }
    operations.push(operation);
  }
  const failed = [...found, ...diagnostics].some(({ severity }) => severity === 'error');
  if (operations.length === 0 && !failed) error(['paths'], 'describes no operation: there is nothing to serve');
  return { operations, diagnostics };
}
