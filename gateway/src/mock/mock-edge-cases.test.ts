import { isRestbusError } from '@restbus/infra';
import { meterWork } from '../__tests__/meter-work';
import { testEndpoint } from '../__tests__/start-test-gateway';
import type { ApiEndpoint } from '../openapi/endpoint';
import { buildMockResponse } from './build-mock-response';
import { SAMPLE_LIMITS } from './create-schema-sampler';
import { findUnmetSecurity } from '../security/find-unmet-security';
import { readPrefer } from './read-prefer';

const ok = (content: Record<string, unknown>, headers?: Record<string, unknown>) => ({
  '200': { description: 'ok', content, ...(headers && { headers }) },
});
const withSchema = (schema: unknown) => ok({ 'application/json': { schema } });

/** What building the answer gives: its status and body, or the code of the error it throws. */
function answer(endpoint: ApiEndpoint, accept?: string, prefer?: string): { status?: number; code?: string } {
  try {
    const built = buildMockResponse(endpoint, accept, readPrefer(prefer));
    return { status: built.status };
  } catch (err) {
    if (!isRestbusError(err)) throw err;
    return { code: err.code, status: err.status };
  }
}

describe('-m answers a schema whose sample would be too large with 500 MOCK_UNAVAILABLE, after bounded work', () => {
  const schemas: Array<[string, unknown]> = [
    ['minItems: 1e9', { type: 'array', minItems: 1e9, items: { type: 'string' } }],
    [
      'nested arrays of 2,000 items each',
      {
        type: 'array',
        minItems: 2000,
        items: { type: 'array', minItems: 2000, items: { type: 'array', minItems: 2000, items: { type: 'integer' } } },
      },
    ],
    ['minLength: 4e8', { type: 'string', minLength: 4e8 }],
    ['a 100 KB default repeated 100,000 times', { type: 'array', minItems: 1e5, items: { default: 'x'.repeat(1e5) } }],
    [
      'an object of 2,000 properties in 2,000 items',
      {
        type: 'array',
        minItems: 2000,
        items: {
          type: 'object',
          properties: Object.fromEntries(Array.from({ length: 2000 }, (_, i) => [`p${i}`, { type: 'integer' }])),
        },
      },
    ],
  ];

  it.each(schemas)('%s', async (_name, schema) => {
    const endpoint = testEndpoint('get', '/huge', { responses: withSchema(schema) });
    // Counted, not timed (issue 45): the characters, items and JSON handled on the way to the refusal stay within a
    // few times the sampler's bound of reads; a sample that was attempted would handle millions to billions (the
    // gateway died of it). The cost of sampling, with its negative control, is counted in mock-paths.cost.test.ts.
    const { units, value } = await meterWork(() => answer(endpoint));
    expect(value).toEqual({ code: 'MOCK_UNAVAILABLE', status: 500 });
    expect(units).toBeLessThan(4 * SAMPLE_LIMITS.maxReads);
  });

  it('names the response as the document writes it (2xx), so that it can be found there', () => {
    const huge = { type: 'string', minLength: 4e8 };
    const endpoint = testEndpoint('get', '/huge', {
      responses: { '2xx': { description: 'ok', content: { 'application/json': { schema: huge } } } },
    });
    expect(() => buildMockResponse(endpoint, undefined, {})).toThrow(
      'GET /huge (its 2xx response in application/json)',
    );
  });

  it('still builds a large answer within the bound, the same as before', () => {
    const endpoint = testEndpoint('get', '/many', {
      responses: withSchema({
        type: 'array',
        minItems: 500,
        items: { type: 'object', properties: { id: { type: 'integer', minimum: 3 } } },
      }),
    });
    const body = buildMockResponse(endpoint, undefined, {}).body as string;
    expect(JSON.parse(body)).toEqual(Array.from({ length: 500 }, () => ({ id: 3 })));
  });
});

describe('-m answers odd requests and odd documents with 4xx or an answer, never 500', () => {
  const named = testEndpoint('get', '/named', {
    responses: {
      '200': {
        description: 'ok',
        content: { 'application/json': { examples: { one: { value: 1 }, two: { value: 2 } } } },
      },
      '1XX': { description: 'interim' },
      '101': { description: 'switching' },
    },
  });

  it.each([
    ['__proto__', '__proto__'],
    ['constructor', 'constructor'],
    ['toString', 'toString'],
    ['hasOwnProperty', 'hasOwnProperty'],
    ['a name of 10,000 characters', 'x'.repeat(10_000)],
  ])('Prefer: example= %s names no declared example: 400', (_label, name) => {
    expect(answer(named, undefined, `example=${name}`)).toEqual({ code: 'BAD_REQUEST', status: 400 });
  });

  it.each(['100', '101', '199', '1xx', '1XX', 'abc', '600', '-1', '2000', '', 'x'.repeat(20)])(
    'Prefer: code=%s is no final status: 400',
    (code) => {
      expect(answer(named, undefined, `code=${code}`)).toEqual({ code: 'BAD_REQUEST', status: 400 });
    },
  );

  it('never answers with a 1xx a document declares, whatever the document', () => {
    const interim = testEndpoint('get', '/interim', {
      responses: { '101': { description: 'switching' }, '1XX': { description: 'interim' } },
    });
    expect(answer(interim).status).toBe(200);
    expect(answer(named, undefined, 'code=200').status).toBe(200);
  });

  it('reads a Prefer of 16 KB of odd preferences, finding the example it names', () => {
    // That the read is one pass is counted in mock-paths.cost.test.ts.
    const prefer = `${Array.from({ length: 2000 }, (_, i) => `x${i}="  a"`).join(', ')}, example=two`;
    expect(answer(named, undefined, prefer).status).toBe(200);
  });

  it('leaves out the response headers HTTP cannot carry, and sends one named __proto__', () => {
    // Parsed, as a document is: an object literal's `__proto__` would set the prototype instead.
    const headers = JSON.parse(
      JSON.stringify({
        ['__proto__']: { schema: { type: 'string', example: 'proto' } },
        'X-Bad\r\nInjected': { schema: { type: 'string', example: 'v' } },
        'X Space': { schema: { type: 'string', example: 'v' } },
        'X-Value': { schema: { type: 'string', example: 'a\r\nSet-Cookie: stolen=1' } },
        'X-Unicode': { schema: { type: 'string', example: '名前' } },
        'X-Fine': { schema: { type: 'string', example: 'fine' } },
        'X-Sampled': { schema: { type: 'array', minItems: 1e9, items: { type: 'string' } } },
      }),
    ) as Record<string, unknown>;
    expect(Object.keys(headers)).toContain('__proto__');
    const endpoint = testEndpoint('get', '/headers', {
      responses: ok({ 'application/json': { example: {} } }, headers),
    });
    const built = buildMockResponse(endpoint, undefined, {});
    expect({ ...built.headers }).toEqual({
      ['__proto__']: 'proto',
      'x-fine': 'fine',
      'content-type': 'application/json',
    });
  });

  it('negotiates an Accept of thousands of ranges against hundreds of types', () => {
    // That the work is linear in the ranges and the types (at most 32 ranges weighed) is counted in
    // mock-paths.cost.test.ts.
    const types = Array.from({ length: 400 }, (_, i) => `application/t${i}+json`);
    const endpoint = testEndpoint('get', '/types', {
      responses: ok(Object.fromEntries(types.map((type) => [type, { example: type }]))),
    });
    const accept = [...Array.from({ length: 2000 }, (_, i) => `application/t${i % 400}+json;q=0.${i % 9}`)].join(',');
    expect(answer(endpoint, accept).status).toBe(200);
    const refused = buildMockResponseError(endpoint, 'image/png');
    expect(refused).toMatch(/answers application\/t0\+json, .*, … \(400 in all\); the request accepts none of them$/);
  });
});

function buildMockResponseError(endpoint: ApiEndpoint, accept: string): string {
  try {
    buildMockResponse(endpoint, accept, {});
  } catch (err) {
    return (err as Error).message;
  }
  return '';
}

describe('the security of -m with odd schemes: a 401 with a challenge HTTP can carry, or the call let through', () => {
  const secured = (scheme: unknown, name = 'odd'): ApiEndpoint => {
    const document = { components: { securitySchemes: { [name]: scheme } } };
    return testEndpoint('get', '/secured', { security: [{ [name]: [] }] }, document);
  };
  const none = { headers: {}, query: '' };

  it.each<[string, unknown, string | undefined]>([
    ['an empty scheme', {}, undefined],
    ['a scheme with no type', { scheme: 'bearer' }, undefined],
    ['an unknown type', { type: 'magic' }, undefined],
    ['mutualTLS', { type: 'mutualTLS' }, undefined],
    ['an apiKey with no name', { type: 'apiKey', in: 'header' }, undefined],
    ['an apiKey in the path', { type: 'apiKey', in: 'path', name: 'k' }, undefined],
    ['an apiKey named with CR/LF', { type: 'apiKey', in: 'header', name: 'X-A\r\nB' }, undefined],
    ['an http scheme with an empty name', { type: 'http', scheme: '' }, undefined],
    ['an http scheme with a space', { type: 'http', scheme: 'a b' }, undefined],
    ['an apiKey in a cookie', { type: 'apiKey', in: 'cookie', name: 'sid' }, 'ApiKey in="cookie", name="sid"'],
    [
      'an apiKey in a query named with CR/LF',
      { type: 'apiKey', in: 'query', name: 'k\r\n"x' },
      'ApiKey in="query", name="k\\"x"',
    ],
    [
      'an apiKey header named __proto__',
      { type: 'apiKey', in: 'header', name: '__proto__' },
      'ApiKey in="header", name="__proto__"',
    ],
    ['http digest', { type: 'http', scheme: 'DIGEST' }, 'Digest realm="restbus"'],
  ])('%s', (_name, scheme, challenge) => {
    expect(findUnmetSecurity(secured(scheme), none)).toEqual(challenge === undefined ? undefined : [challenge]);
  });

  it.each(['__proto__', 'constructor', 'toString', 'undeclared'])(
    'a requirement naming %s, which the document does not declare, lets the call through',
    (name) => {
      const document = { components: { securitySchemes: {} } };
      const endpoint = testEndpoint('get', '/secured', { security: [{ [name]: [] }] }, document);
      expect(findUnmetSecurity(endpoint, none)).toBeUndefined();
    },
  );

  it('finds an API key in a cookie among others, and a header named __proto__ only when sent', () => {
    const cookie = secured({ type: 'apiKey', in: 'cookie', name: 'sid' });
    expect(findUnmetSecurity(cookie, { headers: { cookie: 'a=1; sid=2' }, query: '' })).toBeUndefined();
    const proto = secured({ type: 'apiKey', in: 'header', name: '__proto__' });
    const sent = JSON.parse('{"__proto__":"k"}') as Record<string, string>;
    expect(findUnmetSecurity(proto, { headers: sent, query: '' })).toBeUndefined();
  });

  it('looks for an API key with no `in` in a header, as the gateway always has', () => {
    const keyed = secured({ type: 'apiKey', name: 'X-Api-Key' });
    expect(findUnmetSecurity(keyed, none)).toEqual(['ApiKey in="header", name="X-Api-Key"']);
    expect(findUnmetSecurity(keyed, { headers: { 'x-api-key': 'k' }, query: '' })).toBeUndefined();
  });
});
