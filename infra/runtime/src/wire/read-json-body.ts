import { MAX_JSON_DEPTH } from '../limits/max-json-depth';
import { isNestedDeeperThan } from './find-json-depth';
import type { IncomingRequest } from './types';
import { isJsonMediaType } from '../http/is-json-media-type';

/** The result of reading a request body: the value, or a sentence saying what is wrong with it. */
export type Parsed<T> = { ok: true; value: T } | { ok: false; error: string };

/**
 * Reads the JSON body of a call: it must be sent as `application/json` (or `+json`), be non-empty, nest at most
 * MAX_JSON_DEPTH levels deep and parse.
 * `what` names the expected thing in the message ("a JSON person is expected"). Never throws.
 */
export function readJsonBody(request: Pick<IncomingRequest, 'headers' | 'body'>, what: string): Parsed<unknown> {
  const type = String(request.headers['content-type'] ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();
  if (!isJsonMediaType(type)) {
    return { ok: false, error: `the body must be sent as application/json, not ${type || 'without a content type'}` };
  }
  if (request.body === '') return { ok: false, error: `the body is empty; a JSON ${what} is expected` };
  if (isNestedDeeperThan(request.body, MAX_JSON_DEPTH)) {
    return { ok: false, error: `the body nests deeper than ${MAX_JSON_DEPTH} levels` };
  }
  try {
    return { ok: true, value: JSON.parse(request.body) };
  } catch {
    return { ok: false, error: 'the body is not valid JSON' };
  }
}
