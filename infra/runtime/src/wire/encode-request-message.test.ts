import { decodeRequestMessage } from './codec';
import { createMessagePrefix, encodeRequestMessage } from './encode-request-message';
import type { EndpointDesc, IncomingRequest } from './types';

const desc: EndpointDesc = {
  uri: '/persons/{personId}',
  jsfUri: '/persons/:personId',
  method: 'put',
  operationId: 'putPerson',
  consumes: ['application/json'],
  produces: ['application/json'],
  responses: {},
};

const request: IncomingRequest = {
  cookies: { sid: 'a"b' },
  headers: { 'content-type': 'application/json', 'x-many': ['1', '2'] },
  parameters: { query: { tag: ['x', 'y'], nested: { a: '1' } }, uri: { personId: 'luke "the" one' } },
  body: '{"name":"Luke\\u2028"}',
};

describe('encodeRequestMessage', () => {
  it('makes the whole request message of the wire contract, which the strict decoder takes as it is', () => {
    const bytes = encodeRequestMessage(createMessagePrefix('easer.put_/persons/{personId}', desc), request);
    const message = JSON.parse(bytes.toString('utf8')) as unknown;
    expect(message).toEqual({
      topic: 'easer.put_/persons/{personId}',
      method: 'put',
      uri: '/persons/{personId}',
      endpointDesc: desc,
      request,
    });
    expect(decodeRequestMessage(bytes)).toEqual(message);
  });

  it('carries the caller identity in the request, the same one twice as it was first serialized', () => {
    const prefix = createMessagePrefix('easer.put_/persons/{personId}', desc);
    const user = { subject: 'luke', schemes: ['oidc'], scopes: ['persons:write'], issuer: 'https://id', claims: {} };
    for (let call = 0; call < 2; call++) {
      const message = decodeRequestMessage(encodeRequestMessage(prefix, { ...request, user }));
      expect(message.request).toEqual({ ...request, user });
    }
  });

  it('leaves a request without a caller identity without one', () => {
    const bytes = encodeRequestMessage(createMessagePrefix('easer.put_/persons/{personId}', desc), {
      ...request,
      user: undefined,
    });
    expect(JSON.parse(bytes.toString('utf8'))).not.toHaveProperty('request.user');
  });
});
