import { randomUUID } from 'node:crypto';
import { RestbusError } from '@restbus/infra';
import { buildFallbackAnswer } from './build-fallback-answer';
import { listTemplateChecks } from './list-template-checks';
import type { AnswerContext, RouteAnswer } from './route-answer';

/**
 * The method's implementation function, when its descriptor names one. One that cannot be loaded or found answers
 * from a fallback (500 IMPLEMENTATION_UNAVAILABLE with `strict`).
 */
export function buildImplementationAnswer(context: AnswerContext): RouteAnswer | undefined {
  const reference = context.definition.implementation;
  if (reference === undefined) return undefined;
  const { strict, described } = context;
  const resolved = context.implementations.resolve(reference);
  const answerFallback = buildFallbackAnswer(context);
  return {
    implemented: true,
    readsBody: true,
    usesSession: true,
    // What failed stays in the log (a message may name a file, a host or a password); the client gets an id to find
    // it there. The app logs each failure once (logRequestFailure), with its cause's stack.
    async handle(req, res) {
      if (!resolved.ok) {
        // Logged once, at load, with the loader's own message (see startMockServer's report).
        if (!strict)
          return answerFallback(req, res, `the implementation ${reference} is not available: ${resolved.reason}`);
        throw new RestbusError(
          'IMPLEMENTATION_UNAVAILABLE',
          `the implementation ${reference} is not available: ${resolved.reason} (failure ${randomUUID()} in the server log)`,
        );
      }
      try {
        await resolved.fn(req, res, described);
      } catch (err) {
        throw new RestbusError(
          'HANDLER_FAILED',
          `the implementation ${reference} failed (failure ${randomUUID()} in the server log)`,
          { cause: err },
        );
      }
    },
    // Its fallback and readMockResponse read them.
    templateChecks: listTemplateChecks(context),
  };
}
