import { RestbusError } from '@restbus/infra';
import { answerEventStream, toMockEvents } from '../answer-event-stream';
import type { PreparedResponse } from '../prepare-responses';
import { readMockBody } from './read-mock-body';
import type { AnswerContext, RouteAnswer } from './route-answer';
import { describeHeaders } from './write-response';

/**
 * An event stream: the events of its mock file, paced. A mock file that cannot be used is a stream without events
 * and an X-Mock-Warning saying why (500 with `strict`), as other broken mock files fall back.
 */
export function buildStreamAnswer(context: AnswerContext, response: PreparedResponse): RouteAnswer['handle'] {
  const { apiVersion, strict } = context;
  return async (req, res) => {
    let events: string[] = [];
    let warning: string | undefined;
    if (response.mockBody) {
      const read = await readMockBody(context, req, response, response.mockBody, 'application/json');
      let problem = read.problem;
      if (read.mock) {
        try {
          events = toMockEvents(read.body.toString());
        } catch (err) {
          // A template that rendered something else than JSON for this request: JSON.parse's SyntaxError says where.
          const reason = err instanceof Error ? err.message : String(err);
          problem = `the mock file ${read.mock.name} did not give JSON: ${reason}`;
          if (strict) throw new RestbusError('MOCK_UNAVAILABLE', problem);
        }
      }
      if (problem !== undefined) warning = `${problem}; the stream sends no events`;
    }
    const headers = describeHeaders(response, apiVersion, warning);
    answerEventStream(req, res, { status: response.status, headers, events }, context.eventTiming);
  };
}
