import type { IncomingHttpHeaders } from 'node:http';
import { toHttpAnswer, type HttpAnswer } from '../http/send-reply';
import type { ApiEndpoint } from '../openapi/endpoint';
import { buildMockResponse } from './build-mock-response';
import { readPrefer } from './read-prefer';

/** Answers kept per operation at most: clients choose `Accept` and `Prefer`, and memory must not follow them. */
const ANSWERS_PER_OPERATION = 16;
/** Longer request shapes are answered without being kept (a hostile `Accept` can be kilobytes long). */
const LONGEST_KEY = 256;

export interface MockAnswers {
  /**
   * The answer of `-m` to a call of `endpoint` with these request headers (buildMockResponse, made an HTTP answer).
   * Throws the RestbusError buildMockResponse or readPrefer throws (406, a bad `Prefer`).
   */
  answer(endpoint: ApiEndpoint, headers: IncomingHttpHeaders): HttpAnswer;
}

/**
 * The mock's answers, each built once: an answer depends only on the operation, `Accept` and `Prefer` (examples and
 * schema samples are deterministic), so it is kept per operation and those two headers. Building one (negotiation,
 * sampling, JSON) costs more than writing it; this is what makes `-m` as fast as a static file server. Answers of a
 * reloaded description are new operations: the old ones' answers go with them.
 */
export function createMockAnswers(): MockAnswers {
  const kept = new WeakMap<ApiEndpoint, Map<string, HttpAnswer>>();
  return {
    answer(endpoint, headers) {
      const accept = Array.isArray(headers.accept) ? headers.accept.join(', ') : headers.accept;
      const prefer = headers.prefer;
      // No Accept is not an empty one (anything, against nothing); NUL cannot be in a header value.
      const key = `${prefer ?? ''}\n${accept ?? '\0'}`;
      let answers = kept.get(endpoint);
      const known = answers?.get(key);
      if (known) return known;
      const answer = toHttpAnswer(buildMockResponse(endpoint, accept, readPrefer(prefer)));
      if (key.length > LONGEST_KEY) return answer;
      if (!answers) kept.set(endpoint, (answers = new Map()));
      // The oldest shape makes room: a Map keeps insertion order.
      if (answers.size >= ANSWERS_PER_OPERATION) answers.delete(answers.keys().next().value as string);
      answers.set(key, answer);
      return answer;
    },
  };
}
