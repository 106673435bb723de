import { join } from 'node:path';
import { RestbusError } from '../errors/restbus-error';
import { decodeRequestMessage, decodeResponseMessage, encodeMessage } from './codec';
import { countLoadCompiles } from '../testing/count-load-compiles';
import { EASER_CASES } from '../testing/easer-request-messages';
import type { IncomingRequest, RequestMessage } from './types';

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
    const broken = { ...message, request: { ...message.request, parameters: { query: {}, uri: { id: 7 } } } };
    expect(() => decodeRequestMessage(bytes(JSON.stringify(broken)))).toThrow(
      '/request/parameters/uri/id: must be string',
    );
  });

  it('are refused as MESSAGE_INVALID when they nest deeper than any call needs, before they are parsed', () => {
    const deep = `${'['.repeat(100_000)}${']'.repeat(100_000)}`;
    const text = JSON.stringify({ ...message, request: { ...message.request, body: 'x' } }).replace('"x"', deep);
    expect(codeOf(() => decodeRequestMessage(bytes(text)))).toBe('MESSAGE_INVALID');
  });
});

describe('request messages shaped as easer 7.0.4 sends them', () => {
  it.each(EASER_CASES.map((sample) => [sample.call, sample] as const))(
    'are read as the request restbus sends for the same call: %s',
    (_call, sample) => {
      const { user, ...request } = decodeRequestMessage(bytes(JSON.stringify(sample.easer)))
        .request as IncomingRequest & {
        user?: unknown;
      };
      expect(request).toEqual(sample.restbus);
      expect(user).toEqual((sample.easer as { request: { user?: unknown } }).request.user);
    },
  );

  it('are refused when the body is a number, a boolean or the cookies are not an object', () => {
    const [first] = EASER_CASES;
    const easer = first.easer as { request: Record<string, unknown> };
    for (const request of [{ body: 7 }, { body: true }, { cookies: 'a=b' }]) {
      const broken = { ...easer, request: { ...easer.request, ...request } };
      expect(codeOf(() => decodeRequestMessage(bytes(JSON.stringify(broken))))).toBe('MESSAGE_INVALID');
    }
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

describe('the library', () => {
  it('compiles no schema when it loads: the message checks compile at the first message', () => {
    expect(countLoadCompiles(join(__dirname, '../../dist/index.js'))).toBe(0);
  });
});
