import { readJsonBody } from '../wire/read-json-body';
import { replyJson } from '../wire/replies';
import type { RefuseInput } from './create-contract-endpoints';

/**
 * A contract's 400 in the words restbus services answered before they stood on a contract (their clients and
 * tests read them): a body that cannot be read as JSON says why, as readJsonBody always did ("the body is empty; a
 * JSON person is expected", "… must be sent as application/json, not text/plain"); a body or parameter that breaks
 * its schema names each problem after the contract's sentence, and the `problems` go along as the contract found them
 * (an unreadable body has none: no schema was reached, and its answer stays `{error, code}`).
 * `what` names the body's thing ("person").
 */
export function createWordedRefusal(what: string): RefuseInput {
  return ({ operation, error, problems }, message) => {
    // Only a refused call is read again, for its words: the contract parsed and checked the others once.
    const read = operation.requestBody ? readJsonBody(message.request, what) : undefined;
    // A body that is no JSON at all was answered {error, code} and nothing else: no schema was reached.
    if (read && !read.ok) return replyJson(400, { error: read.error, code: 'REQUEST_INVALID' });
    const said = `${error}: ${problems.map((problem) => `${problem.location}: ${problem.message}`).join('; ')}`;
    return replyJson(400, { error: said, code: 'REQUEST_INVALID', problems });
  };
}
