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

const validate = compileRequestChecks([put]).checks.get(put)!;

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
  it('finds nothing wrong with a call that matches its operation, coercing query text to numbers', () => {
    expect(validate(request({ query: { limit: '7' } }))).toEqual([]);
  });

  it('accepts null where an OAS 3.0 schema says nullable', () => {
    expect(validate(request({ body: '{"id":"luke","familyName":"S","age":null}' }))).toEqual([]);
  });

  it('lists each problem with its location', () => {
    const problems = validate(
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

  it('reports a missing required body and a body that is not JSON', () => {
    expect(validate(request({ body: '' }))).toEqual([{ location: 'body', message: 'is required' }]);
    expect(validate(request({ body: '{nope' }))).toEqual([{ location: 'body', message: 'is not valid JSON' }]);
  });

  it('leaves an operation whose schema does not compile unchecked, and says so', () => {
    const broken = testEndpoint('post', '/broken', {
      requestBody: { content: { 'application/json': { schema: { $ref: '#/components/schemas/Loop' } } } },
    });
    const partial = compileRequestChecks([broken]);
    expect(partial.skipped).toEqual([expect.stringMatching(/^POST \/broken: /)]);
    expect(partial.checks.has(broken)).toBe(false);
  });

  it('leaves an operation whose schemas expand exponentially unchecked, and says so, instead of compiling for seconds', () => {
    // Each level uses the one below twice, as a dereferenced OpenAPI file with $refs does: 2^24 nodes to compile.
    let schema: Record<string, unknown> = { type: 'string' };
    for (let level = 0; level < 24; level++) {
      schema = { type: 'object', properties: { left: schema, right: schema } };
    }
    const exponential = testEndpoint('post', '/deep', {
      requestBody: { content: { 'application/json': { schema } } },
    });
    const partial = compileRequestChecks([exponential, put]);
    expect(partial.skipped).toEqual([
      'POST /deep: its schemas expand to more than 20000 nodes once their $refs are resolved',
    ]);
    expect(partial.checks.get(put)!(request({}))).toEqual([]);
  });
});
