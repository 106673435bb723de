import type { Request } from 'express';
import { RestbusError } from '@restbus/infra';
import { DEFAULT_RESPONSE, type PreparedResponse } from '../prepare-responses';
import { buildDescriptorAnswer } from './build-descriptor-answer';
import { buildFallbackAnswer, type FallbackAnswer } from './build-fallback-answer';
import { buildMockFileAnswer } from './build-mock-file-answer';
import { buildStreamAnswer } from './build-stream-answer';
import { listTemplateChecks } from './list-template-checks';
import type { AnswerContext, RouteAnswer } from './route-answer';

/** The answer X-Mock-Response names (400 when none has that name), else the `OK` one, else the first. */
function selectAnswer<T>(req: Request, answers: Map<string, T>): T | undefined {
  const requested = req.headers['x-mock-response'];
  if (typeof requested === 'string' && requested !== '') {
    const found = answers.get(requested);
    if (found) return found;
    const known = [...answers.keys()].map((name) => JSON.stringify(name)).join(', ') || 'none';
    throw new RestbusError(
      'BAD_REQUEST',
      `X-Mock-Response: no response named ${JSON.stringify(requested)}; declared: ${known}`,
    );
  }
  return answers.get(DEFAULT_RESPONSE) ?? answers.values().next().value;
}

/**
 * What a declared response answers from, decided by its declaration: its event stream, its mock file, or neither. A
 * new kind of response is a module in answers/ and one line here.
 */
function chooseResponseAnswer(
  context: AnswerContext,
  response: PreparedResponse,
  answerFallback: FallbackAnswer,
): RouteAnswer['handle'] {
  if (response.stream) return buildStreamAnswer(context, response);
  if (response.mockBody) return buildMockFileAnswer(context, response, response.mockBody, answerFallback);
  return buildDescriptorAnswer(context, response);
}

/**
 * The method's declared responses: each request gets the one it selects (selectAnswer), whose answer was chosen
 * once, here. A method that declares none answers with its descriptor.
 */
export function buildDeclaredAnswer(context: AnswerContext): RouteAnswer {
  const answerFallback = buildFallbackAnswer(context);
  const answers = new Map(
    [...context.responses].map(([name, response]) => [name, chooseResponseAnswer(context, response, answerFallback)]),
  );
  const answerWithDescriptor = buildDescriptorAnswer(context, undefined);
  const templateChecks = listTemplateChecks(context);
  return {
    implemented: false,
    // A template may show body fields.
    readsBody: templateChecks.length > 0,
    usesSession: false,
    async handle(req, res) {
      const answer = selectAnswer(req, answers) ?? answerWithDescriptor;
      await answer(req, res);
    },
    templateChecks,
  };
}
