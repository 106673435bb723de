import { isTemplateFile } from '../create-mock-files';
import { isMockUnavailable } from './read-mock-body';
import type { AnswerContext, TemplateCheck } from './route-answer';

/** One check per response of the method whose mock file is a template. */
export function listTemplateChecks({ responses, mockFiles, serviceDir }: AnswerContext): TemplateCheck[] {
  const templated = [...responses.values()].filter((response) => isTemplateFile(response.mockBody ?? ''));
  return templated.map(
    (response) => () =>
      mockFiles
        .read(serviceDir, response.mockBody ?? '', response.stream ? 'application/json' : response.declaredType)
        .then(
          () => undefined,
          (err: unknown) => (isMockUnavailable(err) ? err.message : undefined),
        ),
  );
}
