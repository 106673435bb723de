import type { IncomingRequest } from '@restbus/infra';
import { testEndpoint } from '../__tests__/start-test-gateway';
import type { ApiEndpoint } from '../openapi/endpoint';
import { compileRequestChecks } from './create-request-validator';

const person = {
  type: 'object',
  required: ['id', 'familyName'],
  properties: { id: { type: 'string' }, familyName: { type: 'string' }, age: { type: 'integer', nullable: true } },
};

const put: ApiEndpoint = testEndpoint('put', '/persons/{personId}', {
  parameters: [
    { name: 'personId', in: 'path', required: true, schema: { type: 'string', minLength: 3 } },
    { name: 'limit', in: 'query', schema: { type: 'integer', maximum: 10 } },
    { name: 'X-Key', in: 'header', required: true, schema: { type: 'string' } },
  ],
  requestBody: { required: true, content: { 'application/json': { schema: person } } },
});

const check = compileRequestChecks([put]).checks.get(put)!;
/** The problems the check finds, none when it lets the call through. */
const validate = async (call: IncomingRequest) => (await check(call))?.problems ?? [];

function request(overrides: {
  uri?: Record<string, string>;
  query?: Record<string, string>;
  headers?: Record<string, string>;
  body?: string;
}): IncomingRequest {
  return {
    cookies: {},
    headers: { 'content-type': 'application/json', 'x-key': 'k', ...overrides.headers },
    parameters: { uri: overrides.uri ?? { personId: 'luke' }, query: overrides.query ?? {} },
    body: overrides.body ?? '{"id":"luke","familyName":"Skywalker"}',
  };
}

describe('compileRequestChecks', () => {
  it('finds nothing wrong with a call that matches its operation, coercing query text to numbers', async () => {
    expect(await check(request({ query: { limit: '7' } }))).toBeUndefined();
  });

  it('accepts null where an OAS 3.0 schema says nullable', async () => {
    expect(await validate(request({ body: '{"id":"luke","familyName":"S","age":null}' }))).toEqual([]);
  });

  it('lists each problem with its location', async () => {
    const problems = await validate(
      request({
        uri: { personId: 'lu' },
        query: { limit: '70' },
        headers: { 'x-key': undefined as unknown as string },
        body: '{"id":7}',
      }),
    );
    expect(problems).toEqual(
      expect.arrayContaining([
        { location: 'path.personId', message: 'must NOT have fewer than 3 characters' },
        { location: 'query.limit', message: 'must be <= 10' },
        { location: 'header.x-key', message: 'is required' },
        { location: 'body/id', message: 'must be string' },
        { location: 'body', message: "must have required property 'familyName'" },
      ]),
    );
  });

  it('reports a missing required body and a body that is not JSON', async () => {
    expect(await validate(request({ body: '' }))).toEqual([{ location: 'body', message: 'is required' }]);
    expect(await validate(request({ body: '{nope' }))).toEqual([{ location: 'body', message: 'is not valid JSON' }]);
  });

  describe('a large body', () => {
    const list = testEndpoint('post', '/people', {
      requestBody: { content: { 'application/json': { schema: { type: 'array', items: person } } } },
    });
    const checkList = compileRequestChecks([list]).checks.get(list)!;
    const people = (count: number, member: string) => `[${Array.from({ length: count }, () => member).join(',')}]`;

    it('lets a valid body of many items through', async () => {
      expect(await checkList(request({ body: people(20_000, '{"id":"luke","familyName":"S"}') }))).toBeUndefined();
    });

    it('lists at most 100 problems and says how many there were', async () => {
      const refusal = await checkList(request({ body: people(3_000, '{"id":"luke"}') }));
      expect(refusal?.message).toBe(
        'the request does not match the API description (the first 100 of 3,000 problems are listed)',
      );
      expect(refusal?.problems).toHaveLength(100);
    });

    it('over 64 KiB, names its first problem and says that only the first was looked for', async () => {
      const body = people(40_000, '{"id":"luke"}');
      expect(body.length).toBeGreaterThan(64 * 1024);
      expect(await checkList(request({ body }))).toEqual({
        message:
          'the request does not match the API description (the body is over 64 KiB: the first of its problems is listed)',
        problems: [{ location: 'body/0', message: "must have required property 'familyName'" }],
      });
    });

    it('that is not JSON is refused as a short one is', async () => {
      const body = `${people(40_000, '{"id":"luke"}').slice(0, -1)},]`;
      expect((await checkList(request({ body })))?.problems).toEqual([
        { location: 'body', message: 'is not valid JSON' },
      ]);
    });
  });

  it('refuses an operation whose schema does not compile, naming it, unless it is named to serve unchecked', () => {
    const broken = testEndpoint('post', '/broken', {
      requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Loop' } } } },
    });
    expect(() => compileRequestChecks([broken])).toThrow(
      expect.objectContaining({
        code: 'OPENAPI_INVALID',
        message: expect.stringMatching(/^test\.yml: POST \/broken: /),
      }),
    );
    const partial = compileRequestChecks([broken], { unchecked: ['post /broken'] });
    expect(partial.skipped).toEqual([
      expect.stringMatching(/^POST \/broken: served unchecked \(--validateUnchecked\): /),
    ]);
    expect(partial.checks.has(broken)).toBe(false);
  });

  it('refuses an operation whose schemas expand exponentially, instead of compiling for seconds, unless named', async () => {
    // Each level uses the one below twice, as a dereferenced OpenAPI file with $refs does: 2^24 nodes to compile.
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 24; level++) {
      schema = { type: 'object', properties: { left: schema, right: schema } };
    }
    const exponential = testEndpoint('post', '/deep', {
      requestBody: { content: { 'application/json': { schema } } },
    });
    expect(() => compileRequestChecks([exponential, put])).toThrow(/its schemas expand to more than 20000 nodes/);
    const partial = compileRequestChecks([exponential, put], { unchecked: ['POST /deep'] });
    expect(partial.skipped).toEqual([
      'POST /deep: served unchecked (--validateUnchecked): its schemas expand to more than 20000 nodes once their $refs are resolved',
    ]);
    expect(await partial.checks.get(put)!(request({}))).toBeUndefined();
  });
});
