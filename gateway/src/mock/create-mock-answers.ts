import type { IncomingHttpHeaders } from 'node:http';
import { toHttpAnswer, type HttpAnswer } from '../http/send-reply';
import type { ApiEndpoint } from '../openapi/endpoint';
import { buildMockResponse } from './build-mock-response';
import { createSchemaSampler } from './create-schema-sampler';
import { readMockPreference, type MockPreference } from './read-prefer';

/** How much the mock keeps: clients choose `Accept` and `Prefer`, and memory must not follow them. */
export interface MockAnswerLimits {
  /** Request shapes (`Accept` and `Prefer`) kept per operation; the oldest makes room. */
  shapesPerOperation: number;
  /** Bytes of kept bodies and keys, all operations together; past it answers are built each time, not kept. */
  maxBytes: number;
}

export const DEFAULT_MOCK_ANSWER_LIMITS: MockAnswerLimits = { shapesPerOperation: 16, maxBytes: 32 * 1024 * 1024 };

/** Longer request shapes are answered without being kept (a hostile `Accept` can be kilobytes long). */
const LONGEST_KEY = 256;

export interface MockAnswers {
  /**
   * The answer of `-m` to a call of `endpoint` with these request headers and query string (without its `?`: Prism's
   * selectors `__code`, `__example`, `__dynamic` are read from it when there is no `Prefer`), buildMockResponse made an
   * HTTP answer. Throws the RestbusError buildMockResponse or readMockPreference throws (406, a bad `Prefer` or
   * selector, 500 `MOCK_UNAVAILABLE` for a body past the sampler's bound).
   */
  answer(endpoint: ApiEndpoint, headers: IncomingHttpHeaders, query?: string): HttpAnswer;
  /** Forgets every kept answer: on reload the operations are new. */
  clear(): void;
}

/**
 * The key part of a query's selectors: empty when there are none (the answer is the plain one), else starting with
 * NUL, which no `Prefer` header can hold.
 */
function selectorKey({ code, example, dynamic }: MockPreference): string {
  if (code === undefined && example === undefined && dynamic === undefined) return '';
  return `\0${code ?? ''}\0${dynamic ?? ''}\0${example ?? ''}`;
}

/** What a kept answer weighs: its body's bytes (counted once, at framing) and its key. */
const weigh = (answer: HttpAnswer, key: string): number => Number(answer.headers['content-length'] ?? 0) + key.length;

/**
 * The mock's answers, each built once: an answer depends only on the operation, `Accept` and `Prefer` (or, without
 * `Prefer`, the query's `__` selectors; examples and schema samples are deterministic), so it is kept per operation
 * and those. Building one (negotiation, sampling, JSON, the header checks) costs more than writing it; keeping them is
 * what makes `-m` as fast as a static file server. Bounded per operation and in bytes overall (see MockAnswerLimits).
 */
export function createMockAnswers(limits: MockAnswerLimits = DEFAULT_MOCK_ANSWER_LIMITS): MockAnswers {
  let kept = new Map<ApiEndpoint, Map<string, HttpAnswer>>();
  let bytes = 0;
  // Remembers the schemas too large to sample, so that asking again costs nothing; new with the documents.
  let sampler = createSchemaSampler();
  return {
    answer(endpoint, headers, query = '') {
      const accept = Array.isArray(headers.accept) ? headers.accept.join(', ') : headers.accept;
      const prefer = headers.prefer;
      // Without Prefer, the query's selectors stand in its place; a query without `__` has none and is not parsed.
      let preference: MockPreference | undefined;
      let asked = prefer ?? '';
      if (asked === '' && query.includes('__')) {
        preference = readMockPreference(undefined, query);
        asked = selectorKey(preference);
      }
      // No Accept is not an empty one (anything, against nothing); NUL cannot be in a header value.
      const key = `${asked}\n${accept ?? '\0'}`;
      let answers = kept.get(endpoint);
      const known = answers?.get(key);
      if (known) return known;
      preference ??= readMockPreference(prefer, query);
      const answer = toHttpAnswer(buildMockResponse(endpoint, accept, preference, sampler));
      if (key.length > LONGEST_KEY) return answer;
      if (!answers) kept.set(endpoint, (answers = new Map()));
      if (answers.size >= limits.shapesPerOperation) {
        // The oldest shape makes room: a Map keeps insertion order.
        for (const [oldestKey, oldest] of answers) {
          answers.delete(oldestKey);
          bytes -= weigh(oldest, oldestKey);
          break;
        }
      }
      const weight = weigh(answer, key);
      if (bytes + weight > limits.maxBytes) return answer;
      answers.set(key, answer);
      bytes += weight;
      return answer;
    },
    clear() {
      kept = new Map();
      bytes = 0;
      sampler = createSchemaSampler();
    },
  };
}
