import type { RequestMessage } from '../wire/types';

/** A request message as the gateway would send it, for tests of services and responders. */
export function createRequestMessage(
  overrides: Partial<RequestMessage['request']> & {
    method?: RequestMessage['method'];
    uri?: string;
    prefix?: string;
  } = {},
): RequestMessage {
  const { method = 'get', uri = '/persons', prefix = 'easer', ...request } = overrides;
  return {
    topic: `${prefix}.${method}_${uri}`,
    method,
    uri,
    endpointDesc: {
      uri,
      jsfUri: uri.replace(/\{(\w+)\}/g, ':$1'),
      method,
      operationId: null,
      consumes: [],
      produces: [],
      responses: {},
    },
    request: { cookies: {}, headers: {}, parameters: { query: {}, uri: {} }, body: '', ...request },
  };
}
