import type { PreparedResponse } from '../prepare-responses';
import type { AnswerContext, RouteAnswer } from './route-answer';
import { writeResponse } from './write-response';

/** The service's descriptor as JSON, with the response's status and headers (200 when none is declared). */
export function buildDescriptorAnswer(
  context: AnswerContext,
  response: PreparedResponse | undefined,
): RouteAnswer['handle'] {
  const { echo, apiVersion } = context;
  return async (_req, res) => writeResponse(res, response, echo, 'application/json', apiVersion);
}
