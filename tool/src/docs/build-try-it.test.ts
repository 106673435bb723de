import type { RequestParameter } from '@restbus/project-format';
import { buildTryIt, listPathParameters, type TryItInput } from './build-try-it';

const parameter = (fields: Partial<RequestParameter> & Pick<RequestParameter, 'name' | 'kind'>): RequestParameter => ({
  type: 'string',
  required: false,
  summary: '',
  ...fields,
});

const input = (fields: Partial<TryItInput> = {}): TryItInput => ({
  method: 'GET',
  prefix: '/rest',
  uriTemplate: '/orders',
  parameters: [],
  headers: [],
  body: undefined,
  ...fields,
});

describe('listPathParameters', () => {
  it('names each {parameter} of a URI template once, in order', () => {
    expect(listPathParameters('/a/{id}/b/{part}-{rest}.json/{id}')).toEqual(['id', 'part', 'rest']);
    expect(listPathParameters('/plain/path')).toEqual([]);
  });
});

describe('buildTryIt', () => {
  it('calls prefix + uriTemplate on the page origin, the prefix kept apart so it is never filled in', () => {
    const view = buildTryIt(input({ prefix: '/api/{v}', uriTemplate: '/orders/{id}' }));
    expect(view).toMatchObject({
      method: 'GET',
      methodClass: 'get',
      prefix: '/api/{v}',
      uriTemplate: '/orders/{id}',
      url: '/api/{v}/orders/{id}',
      pathParameters: [{ name: 'id', value: '', required: true, type: 'string' }],
      hasPathParameters: true,
    });
  });

  it('prefills a path parameter from the URL parameter of its name, else any of its name, as text', () => {
    const view = buildTryIt(
      input({
        uriTemplate: '/orders/{id}/lines/{line}/{free}',
        parameters: [
          parameter({ name: 'id', kind: 'QUERY', default: 'from query' }),
          parameter({ name: 'id', kind: 'URL', type: 'integer', default: 42 }),
          parameter({ name: 'line', kind: 'QUERY', type: 'object', default: { a: 1 } }),
        ],
      }),
    );
    expect(view.pathParameters).toEqual([
      { name: 'id', value: '42', required: true, type: 'integer' },
      { name: 'line', value: '{"a":1}', required: true, type: 'object' },
      { name: 'free', value: '', required: true, type: 'string' },
    ]);
  });

  it('has a field per QUERY parameter, prefilled with its default', () => {
    const view = buildTryIt(
      input({
        parameters: [
          parameter({ name: 'status', kind: 'QUERY', default: 'open' }),
          parameter({ name: 'limit', kind: 'QUERY', type: 'integer', required: true }),
          parameter({ name: 'id', kind: 'URL' }),
          parameter({ name: 'item', kind: 'BODY' }),
          parameter({ name: 'flag', kind: 'QUERY', type: 'boolean', default: false }),
        ],
      }),
    );
    expect(view.queryParameters).toEqual([
      { name: 'status', value: 'open', required: false, type: 'string' },
      { name: 'limit', value: '', required: true, type: 'integer' },
      { name: 'flag', value: 'false', required: false, type: 'boolean' },
    ]);
    expect(view.hasQueryParameters).toBe(true);
    expect(view.hasPathParameters).toBe(false);
  });

  it('lists the declared headers, then HEADER parameters with a default or required, as Name: value lines', () => {
    const view = buildTryIt(
      input({
        headers: [
          { field: 'Accept', content: 'application/json' },
          { field: 'X-Tenant', content: 'acme' },
        ],
        parameters: [
          parameter({ name: 'x-tenant', kind: 'HEADER', default: 'other' }),
          parameter({ name: 'X-Trace', kind: 'HEADER', default: 7 }),
          parameter({ name: 'X-Key', kind: 'HEADER', required: true }),
          parameter({ name: 'X-Optional', kind: 'HEADER' }),
        ],
      }),
    );
    expect(view.headers).toBe('Accept: application/json\nX-Tenant: acme\nX-Trace: 7\nX-Key: ');
    expect(view.headerRows).toBe(5);
    expect(buildTryIt(input()).headers).toBe('');
    expect(buildTryIt(input()).headerRows).toBe(2);
  });

  it('has a body for POST and PUT, prefilled with the example, and a JSON one adds a missing Content-Type', () => {
    const body = { text: '{\n  "item": "book"\n}', json: true };
    const post = buildTryIt(
      input({ method: 'POST', body, headers: [{ field: 'Accept', content: 'application/json' }] }),
    );
    expect(post).toMatchObject({ hasBody: true, body: body.text, bodyRows: 4, bodyNote: '' });
    expect(post.headers).toBe('Accept: application/json\nContent-Type: application/json');
    const put = buildTryIt(
      input({ method: 'PUT', body, headers: [{ field: 'content-type', content: 'application/merge-patch+json' }] }),
    );
    expect(put.headers).toBe('content-type: application/merge-patch+json');
    const text = buildTryIt(input({ method: 'PUT', body: { text: 'plain', json: false } }));
    expect(text).toMatchObject({ body: 'plain', headers: '' });
    for (const method of ['GET', 'DELETE'] as const) {
      expect(buildTryIt(input({ method, body }))).toMatchObject({ hasBody: false, body: '', headers: '' });
    }
  });

  it('says why an example body is not in the form, and keeps the body field empty', () => {
    const view = buildTryIt(input({ method: 'POST', body: { note: 'too large' } }));
    expect(view).toMatchObject({ hasBody: true, body: '', bodyNote: 'too large', bodyRows: 2 });
    expect(buildTryIt(input({ method: 'POST' }))).toMatchObject({ hasBody: true, body: '', bodyNote: '' });
  });

  it('sets every key, so that mustache never looks one up in an enclosing view', () => {
    const view = buildTryIt(input());
    for (const value of Object.values(view)) expect(value).not.toBeUndefined();
  });
});
