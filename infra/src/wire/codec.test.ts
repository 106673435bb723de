import { RestbusError } from '../errors/restbus-error';
import { decodeRequestMessage, decodeResponseMessage, encodeMessage } from './codec';
import type { RequestMessage } from './types';

const message: RequestMessage = {
  topic: 'easer.get_/persons',
  method: 'get',
  uri: '/persons',
  endpointDesc: {
    uri: '/persons',
    jsfUri: '/persons',
    method: 'get',
    operationId: null,
    consumes: [],
    produces: ['application/json'],
    responses: { '200': { status: '200', headers: {}, examples: {} } },
  },
  request: { cookies: {}, headers: { accept: '*/*' }, parameters: { query: { a: ['1', '2'] }, uri: {} }, body: '' },
};

const bytes = (text: string): Uint8Array => new TextEncoder().encode(text);

function codeOf(action: () => unknown): string | undefined {
  try {
    action();
  } catch (err) {
    return err instanceof RestbusError ? err.code : 'not a RestbusError';
  }
  return undefined;
}

describe('request messages', () => {
  it('round-trip through encode and decode unchanged', () => {
    expect(decodeRequestMessage(encodeMessage(message))).toEqual(message);
  });

  it('are refused as MESSAGE_INVALID when the payload is not JSON', () => {
    expect(codeOf(() => decodeRequestMessage(bytes('{nope')))).toBe('MESSAGE_INVALID');
  });

  it('are refused with the path of the wrong field', () => {
    const broken = { ...message, request: { ...message.request, body: { not: 'a string' } } };
    expect(() => decodeRequestMessage(bytes(JSON.stringify(broken)))).toThrow('/request/body: must be string');
  });
});

describe('response messages', () => {
  it('accept a reply without status or body', () => {
    expect(decodeResponseMessage(bytes('{}'))).toEqual({});
  });

  it('are refused as BAD_REPLY when the status is outside 100-599', () => {
    expect(codeOf(() => decodeResponseMessage(bytes('{"status":600}')))).toBe('BAD_REPLY');
  });

  it('are refused as BAD_REPLY when the payload is a bare number', () => {
    expect(codeOf(() => decodeResponseMessage(bytes('42')))).toBe('BAD_REPLY');
  });
});
