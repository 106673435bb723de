import Negotiator from 'negotiator';
import type { IncomingHttpHeaders } from 'node:http';
import { isJsonMediaType, RestbusError, type EndpointDesc, type ResponseMessage } from '@restbus/infra';

/** easer answered the `200` response; an operation without one answers its lowest declared 2xx. */
function chooseStatus(desc: EndpointDesc): string | undefined {
  if (desc.responses['200']) return '200';
  return Object.keys(desc.responses)
    .filter((status) => /^2\d\d$/.test(status))
    .sort()[0];
}

/**
 * easer's `-m`: the example of the operation's `200` response (else its lowest 2xx) in the media type the client
 * accepts, with that response's status. Unlike easer, `Accept` is negotiated (q-values, wildcards) among the media
 * types that have an example, and nothing acceptable is `406 NOT_ACCEPTABLE` (easer answered `415`); an operation
 * without any example answers `undefined`, and the caller says it is not implemented (easer answered an empty `404`).
 */
export function answerFromExample(desc: EndpointDesc, headers: IncomingHttpHeaders): ResponseMessage | undefined {
  const status = chooseStatus(desc);
  const examples = status === undefined ? {} : desc.responses[status].examples;
  // In the order the description produces them, then any other type an example is given for.
  const types = [...new Set([...desc.produces, ...Object.keys(examples)])].filter((type) => type in examples);
  if (types.length === 0) return undefined;
  const [type] = new Negotiator({ headers }).mediaTypes(types);
  if (type === undefined) {
    throw new RestbusError(
      'NOT_ACCEPTABLE',
      `the example of ${desc.method.toUpperCase()} ${desc.uri} is in ${types.join(', ')}; the request accepts none of them`,
    );
  }
  const example = examples[type];
  return {
    status: Number(status),
    headers: { 'content-type': type },
    // sendReply writes a string as it is: a JSON example is written as JSON, whatever its value.
    body: isJsonMediaType(type)
      ? JSON.stringify(example)
      : typeof example === 'string'
        ? example
        : JSON.stringify(example),
  };
}
