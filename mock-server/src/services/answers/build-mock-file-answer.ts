import type { PreparedResponse } from '../prepare-responses';
import type { FallbackAnswer } from './build-fallback-answer';
import { readMockBody } from './read-mock-body';
import type { AnswerContext, RouteAnswer } from './route-answer';
import { writeResponse } from './write-response';

/** A response's mock file (a template rendered for the request); one that cannot be read falls back. */
export function buildMockFileAnswer(
  context: AnswerContext,
  response: PreparedResponse,
  mockBody: string,
  answerFallback: FallbackAnswer,
): RouteAnswer['handle'] {
  return async (req, res) => {
    const read = await readMockBody(context, req, response, mockBody);
    if (read.mock) writeResponse(res, response, read.body, read.mock.type, context.apiVersion);
    else await answerFallback(req, res, read.problem, response);
  };
}
