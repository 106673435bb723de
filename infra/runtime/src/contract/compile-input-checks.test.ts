import type { IncomingRequest, RequestMessage } from '../wire/types';
import { compileInputChecks } from './compile-input-checks';
import type { Contract } from './contract';

const contract: Contract = {
  title: 'things',
  version: '1',
  dialect: '3.0',
  operations: [
    {
      name: 'putThing',
      method: 'put',
      path: '/things/{id}',
      parameters: {
        path: [{ name: 'id', required: true, schema: { type: 'integer' } }],
        query: [{ name: 'limit', required: false, schema: { type: 'integer', maximum: 10 } }],
        header: [{ name: 'X-Tenant', required: true, schema: { type: 'string', minLength: 2 } }],
      },
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', required: ['name'] } } },
      },
    },
  ],
};

const check = compileInputChecks(contract).get('putThing')!;

function message(request: Partial<IncomingRequest>): RequestMessage {
  return {
    topic: 'things',
    method: 'put',
    uri: '/things/7',
    endpointDesc: { method: 'put', uri: '/things/{id}' },
    request: {
      cookies: {},
      headers: { 'content-type': 'application/json', 'x-tenant': 'acme' },
      parameters: { uri: { id: '7' }, query: { limit: '3' } },
      body: '{"name":"a"}',
      ...request,
    },
  } as RequestMessage;
}

describe('compileInputChecks', () => {
  it('hands the handler parameters coerced, headers by their declared names, and the parsed body', () => {
    const result = check(message({}));
    expect(result.ok && { ...result.input, message: undefined }).toEqual({
      params: { id: 7 },
      query: { limit: 3 },
      headers: { 'X-Tenant': 'acme' },
      body: { name: 'a' },
      message: undefined,
    });
  });

  it('hands the handler who called when the gateway verified it, and nothing for a user it did not write', () => {
    const caller = {
      subject: 'alice',
      schemes: ['oidc'],
      scopes: ['things:write'],
      issuer: 'https://id.test',
      claims: {},
    };
    const verified = check(message({ user: caller }));
    expect(verified.ok && verified.input.caller).toEqual(caller);
    // easer's passport user, or anything else of another shape, is no verified identity.
    for (const user of [{ id: 'u1', username: 'admin' }, 'root', { subject: 'root' }, { ...caller, scopes: 'all' }]) {
      const result = check(message({ user }));
      expect(result.ok && Object.hasOwn(result.input, 'caller')).toBe(false);
    }
    const anonymous = check(message({}));
    expect(anonymous.ok && Object.hasOwn(anonymous.input, 'caller')).toBe(false);
  });

  it('takes a request that leaves out optional parameters named after Object.prototype properties', () => {
    const names = ['toString', 'constructor', 'valueOf', 'hasOwnProperty', '__proto__'];
    const optional = names.map((name) => ({ name, required: false, schema: { type: 'string' } }));
    const [listThings] = compileInputChecks({
      ...contract,
      operations: [
        {
          name: 'listThings',
          method: 'get',
          path: '/things',
          parameters: { path: [], query: optional, header: optional.map((p) => ({ ...p, name: `x-${p.name}` })) },
        },
      ],
    }).values();
    const result = listThings({
      ...message({ headers: {}, parameters: { uri: {}, query: {} }, body: '' }),
      method: 'get',
    } as RequestMessage);
    expect(result).toMatchObject({ ok: true });
    const sent = listThings(message({ headers: {}, parameters: { uri: {}, query: { toString: 'x' } }, body: '' }));
    expect(sent.ok && sent.input.query.toString).toBe('x');
  });

  it('names a header problem by its lower-case name, as the gateway does', () => {
    expect(check(message({ headers: { 'content-type': 'application/json', 'x-tenant': 'a' } }))).toEqual({
      ok: false,
      message: 'the request does not match the API description',
      problems: [{ location: 'header.x-tenant', message: 'must NOT have fewer than 2 characters' }],
    });
    expect(check(message({ headers: { 'content-type': 'application/json' } }))).toMatchObject({
      problems: [{ location: 'header.x-tenant', message: 'is required' }],
    });
  });

  it('refuses a JSON body whose bytes were not UTF-8 (sent on as base64) as not valid JSON, as the gateway does', () => {
    const result = check(
      message({ body: Buffer.from('{"name":"\xff"}', 'latin1').toString('base64'), bodyEncoding: 'base64' }),
    );
    expect(result).toMatchObject({ ok: false, problems: [{ location: 'body', message: 'is not valid JSON' }] });
  });

  it('refuses a value that breaks its format, in a parameter as in the body, and takes one that keeps it', () => {
    const dated: Contract = {
      ...contract,
      operations: [
        {
          ...contract.operations[0],
          parameters: {
            path: [{ name: 'id', required: true, schema: { type: 'string', format: 'uuid' } }],
            query: [{ name: 'since', required: false, schema: { type: 'string', format: 'date-time' } }],
            header: [],
          },
          requestBody: {
            required: true,
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: { email: { format: 'email' }, site: { format: 'url' }, n: { format: 'int32' } },
                },
              },
            },
          },
        },
      ],
    };
    const checkDated = compileInputChecks(dated).get('putThing')!;
    const uuid = '3fa85f64-5717-4562-b3fc-2c963f66afa6';
    const body = '{"email":"a@example.com","site":"https://example.com/x","n":7}';
    expect(
      checkDated(message({ parameters: { uri: { id: uuid }, query: { since: '2026-11-27T08:00:00Z' } }, body })),
    ).toMatchObject({ ok: true });
    const wrong = message({
      parameters: { uri: { id: '7' }, query: { since: 'yesterday' } },
      body: `{"email":"nobody","site":"not a url","n":${2 ** 31}}`,
    });
    expect(checkDated(wrong)).toEqual({
      ok: false,
      message: 'the request does not match the API description',
      problems: [
        { location: 'path.id', message: 'must match format "uuid"' },
        { location: 'query.since', message: 'must match format "date-time"' },
        { location: 'body/email', message: 'must match format "email"' },
        { location: 'body/site', message: 'must match format "url"' },
        { location: 'body/n', message: 'must match format "int32"' },
      ],
    });
  });

  describe('of a parameter that allows no empty value (Swagger 2.0 query without allowEmptyValue: true)', () => {
    const query = [
      { name: 'name', required: false, schema: { type: 'string' }, allowEmptyValue: false },
      { name: 'limit', required: false, schema: { type: 'integer' }, allowEmptyValue: false },
      { name: 'tags', required: false, schema: { type: 'array', items: { type: 'string' } }, allowEmptyValue: false },
      { name: 'note', required: false, schema: { type: 'string' }, allowEmptyValue: true },
      { name: 'tag', required: false, schema: { type: 'string' } },
    ];
    const strict = compileInputChecks({
      ...contract,
      dialect: '2.0',
      operations: [{ ...contract.operations[0], parameters: { ...contract.operations[0].parameters, query } }],
    }).get('putThing')!;
    const withQuery = (values: Record<string, string | string[]>) =>
      strict(message({ parameters: { uri: { id: '7' }, query: values } }));

    it('refuses it sent empty, though its schema takes an empty string', () => {
      expect(withQuery({ name: '' })).toEqual({
        ok: false,
        message: 'the request does not match the API description',
        problems: [{ location: 'query.name', message: 'must not be empty' }],
      });
    });

    it('refuses an empty value among repeated ones, and still checks the value against its schema', () => {
      expect(withQuery({ tags: ['a', ''], limit: '' })).toMatchObject({
        ok: false,
        problems: [
          { location: 'query.limit', message: 'must not be empty' },
          { location: 'query.tags', message: 'must not be empty' },
          { location: 'query.limit', message: 'must be integer' },
        ],
      });
    });

    it('takes it absent or with a value, and an empty value where the parameter allows one or does not say', () => {
      expect(withQuery({})).toMatchObject({ ok: true });
      expect(withQuery({ name: 'Ada', limit: '3' })).toMatchObject({ ok: true, input: { query: { limit: 3 } } });
      expect(withQuery({ note: '', tag: '' })).toMatchObject({ ok: true, input: { query: { note: '', tag: '' } } });
    });
  });
});
