import type { Request, Response } from 'express';
import { DEFAULT_RESPONSE, type PreparedResponse } from '../prepare-responses';
import { readMockBody } from './read-mock-body';
import type { AnswerContext } from './route-answer';
import { writeResponse } from './write-response';

/** Answers in place of a broken source, saying why (`reason`) in X-Mock-Warning; `tried` is a response that failed. */
export type FallbackAnswer = (req: Request, res: Response, reason: string, tried?: PreparedResponse) => Promise<void>;

/** The response a fallback answers with, as upstream's getMockResponseBody took it: `OK`, else a 200 one. */
function findOkResponse(responses: Map<string, PreparedResponse>): PreparedResponse | undefined {
  const ok = responses.get(DEFAULT_RESPONSE);
  if (ok) return ok;
  for (const response of responses.values()) if (response.status === 200) return response;
  return undefined;
}

/** Answers from the OK mock file, else from the descriptor, saying why in X-Mock-Warning. */
export function buildFallbackAnswer(context: AnswerContext): FallbackAnswer {
  const { apiVersion, echo } = context;
  const ok = findOkResponse(context.responses);
  return async (req, res, reason, tried) => {
    let why = reason;
    if (ok?.mockBody && ok !== tried) {
      const read = await readMockBody(context, req, ok, ok.mockBody);
      if (read.mock) {
        writeResponse(res, ok, read.body, read.mock.type, apiVersion, `${why}; answered with ${read.mock.name}`);
        return;
      }
      why = `${why}; ${read.problem}`;
    }
    writeResponse(res, undefined, echo, 'application/json', apiVersion, `${why}; answered with the descriptor`);
  };
}
