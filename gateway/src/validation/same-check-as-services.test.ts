import { compileInputChecks, type IncomingRequest, type RequestMessage } from '@restbus/infra';
import { DIALECT_CASES } from '@restbus/infra/testing';
import { testEndpoint } from '../__tests__/start-test-gateway';
import { createReplyChecks } from '../replies/create-reply-checks';
import { compileRequestChecks } from './create-request-validator';

const endpoint = testEndpoint('post', '/things/{id}', {
  parameters: [
    { name: 'id', in: 'path', required: true, schema: { type: 'integer' } },
    { name: 'X-Tenant', in: 'header', required: true, schema: { type: 'string', minLength: 2 } },
  ],
  requestBody: {
    required: true,
    content: { 'application/json': { schema: { type: 'object', properties: { n: { type: 'integer' } } } } },
  },
});
const noSchema = testEndpoint('post', '/notes', {
  requestBody: { required: true, content: { 'application/json': {} } },
});

const gatewayCheck = (at: typeof endpoint) => compileRequestChecks([at]).checks.get(at)!;
const serviceCheck = ({ model, api }: typeof endpoint) => {
  // What a generator writes of the operation: the contract carries no responses' schemas.
  const { name, method, path, parameters, requestBody } = model;
  const operation = { name, method, path, parameters, requestBody };
  const contract = { title: 't', version: '1', dialect: api.dialect, operations: [operation] };
  const check = compileInputChecks(contract).get(name)!;
  return (request: IncomingRequest) => {
    const result = check({ request } as RequestMessage);
    return result.ok ? undefined : { message: result.message, problems: result.problems };
  };
};

const call = (overrides: Partial<IncomingRequest>): IncomingRequest => ({
  cookies: {},
  headers: { 'content-type': 'application/json', 'x-tenant': 'acme' },
  parameters: { uri: { id: '7' }, query: {} },
  body: '{"n":1}',
  ...overrides,
});

describe("the gateway's --validate and a generated service's input check", () => {
  it('give the same answer to the same call, whatever is wrong with it', async () => {
    const calls = [
      call({}),
      call({ parameters: { uri: { id: 'seven' }, query: {} }, headers: { 'content-type': 'application/json' } }),
      call({ body: '{"n":"one"}' }),
      call({ body: '' }),
      call({ body: '{nope' }),
      call({ body: '{}', headers: { 'content-type': 'text/plain', 'x-tenant': 'acme' } }),
      call({ body: `${'['.repeat(200)}${']'.repeat(200)}` }),
    ];
    const gateway = gatewayCheck(endpoint);
    const service = serviceCheck(endpoint);
    for (const request of calls) expect(await gateway(request)).toEqual(service(request));
    expect(await gateway(calls[1])).toEqual({
      message: 'the request does not match the API description',
      problems: [
        { location: 'path.id', message: 'must be integer' },
        { location: 'header.x-tenant', message: 'is required' },
      ],
    });
  });

  it('give the same answer to a value that breaks its format, in a parameter or the body', async () => {
    const dated = testEndpoint('post', '/events/{id}', {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string', format: 'uuid' } }],
      requestBody: {
        content: {
          'application/json': {
            schema: { type: 'object', properties: { at: { type: 'string', format: 'date-time' } } },
          },
        },
      },
    });
    const calls = [
      call({
        parameters: { uri: { id: '3fa85f64-5717-4562-b3fc-2c963f66afa6' }, query: {} },
        body: '{"at":"2026-11-27T08:00:00Z"}',
      }),
      call({ parameters: { uri: { id: '7' }, query: {} }, body: '{"at":"tomorrow"}' }),
    ];
    const gateway = gatewayCheck(dated);
    const service = serviceCheck(dated);
    for (const request of calls) expect(await gateway(request)).toEqual(service(request));
    expect(await gateway(calls[0])).toBeUndefined();
    expect((await gateway(calls[1]))?.problems).toEqual([
      { location: 'path.id', message: 'must match format "uuid"' },
      { location: 'body/at', message: 'must match format "date-time"' },
    ]);
  });

  it('give the same answer to an empty query value of a Swagger 2.0 document: refused unless allowEmptyValue', async () => {
    const listed = testEndpoint(
      'get',
      '/things',
      {
        parameters: [
          { name: 'q', in: 'query', type: 'string' },
          { name: 'note', in: 'query', type: 'string', allowEmptyValue: true },
        ],
        responses: { 200: { description: 'ok' } },
      },
      { swagger: '2.0', info: { title: 't', version: '1' } },
    );
    const query = (values: Record<string, string>) =>
      call({ parameters: { uri: {}, query: values }, headers: {}, body: '' });
    const calls = [query({ q: 'a', note: '' }), query({ q: '' }), query({})];
    const gateway = gatewayCheck(listed);
    const service = serviceCheck(listed);
    for (const request of calls) expect(await gateway(request)).toEqual(service(request));
    expect(await gateway(calls[0])).toBeUndefined();
    expect((await gateway(calls[1]))?.problems).toEqual([{ location: 'query.q', message: 'must not be empty' }]);
  });

  it('refuse a missing body or one that is not JSON where the operation takes JSON of no declared schema', async () => {
    const gateway = gatewayCheck(noSchema);
    expect(await gateway(call({ body: '' }))).toMatchObject({
      problems: [{ location: 'body', message: 'is required' }],
    });
    expect(await gateway(call({ body: '{nope' }))).toMatchObject({
      problems: [{ location: 'body', message: 'is not valid JSON' }],
    });
    expect(await gateway(call({ body: '{"any":"thing"}' }))).toBeUndefined();
  });

  it.each(DIALECT_CASES.map((c) => [`${c.says} (${c.dialect})`, c] as const))(
    'read the keywords of each dialect alike, as the reply check does: %s',
    async (_says, { dialect, schema, accepts, refuses }) => {
      const body = { type: 'object', properties: { v: schema } };
      const at =
        dialect === '2.0'
          ? testEndpoint(
              'post',
              '/values',
              {
                parameters: [{ name: 'b', in: 'body', required: true, schema: body }],
                responses: { 200: { description: 'ok', schema: body } },
              },
              { swagger: '2.0', info: { title: 't', version: '1' } },
            )
          : testEndpoint(
              'post',
              '/values',
              {
                requestBody: { required: true, content: { 'application/json': { schema: body } } },
                responses: { 200: { description: 'ok', content: { 'application/json': { schema: body } } } },
              },
              { openapi: dialect === '3.1' ? '3.1.0' : '3.0.3', info: { title: 't', version: '1' } },
            );
      const gateway = gatewayCheck(at);
      const service = serviceCheck(at);
      const reply = createReplyChecks([at]).checkers.get(at)!;
      const answers = async (value: unknown) => {
        const request = call({ parameters: { uri: {}, query: {} }, headers: {}, body: JSON.stringify({ v: value }) });
        request.headers = { 'content-type': 'application/json' };
        const fromGateway = await gateway(request);
        expect(fromGateway).toEqual(service(request));
        return [fromGateway === undefined, reply.checkValue('200', 'application/json', { v: value }).length === 0];
      };
      for (const value of accepts) expect([value, ...(await answers(value))]).toEqual([value, true, true]);
      for (const value of refuses) expect([value, ...(await answers(value))]).toEqual([value, false, false]);
    },
  );
});
