import { buildApiModel } from '@restbus/openapi';
import type { HttpMethod } from '@restbus/infra';
import type { ApiEndpoint } from '../openapi/endpoint';
import { createRouteTable } from './route-table';

function testModel(method: HttpMethod, uri: string): Pick<ApiEndpoint, 'model' | 'api'> {
  const document = { openapi: '3.0.3', paths: { [uri]: { [method]: { responses: {} } } } };
  const api = buildApiModel(document, { file: 'api.yml', dialect: '3.0', topicPrefix: 'easer' });
  return { model: api.operations[0], api };
}

const endpoint = (method: HttpMethod, uri: string): ApiEndpoint => ({
  ...testModel(method, uri),
  file: 'api.yml',
  document: {},
  desc: { uri, jsfUri: uri, method, operationId: null, consumes: [], produces: [], responses: {} },
  operation: {},
  dialect: '3.0',
});

const table = createRouteTable(
  [
    endpoint('get', '/persons'),
    endpoint('post', '/persons'),
    endpoint('get', '/persons/{personId}'),
    endpoint('put', '/persons/{id}'),
    endpoint('get', '/persons/me'),
    endpoint('get', '/files/{name}.json'),
    endpoint('get', '/a/{x}/b/{y}'),
  ],
  { basePath: '/', topicPrefix: 'easer' },
);

describe('createRouteTable', () => {
  it('finds an endpoint and names its path parameters', () => {
    const found = table.lookup('GET', '/persons/luke');
    expect(found).toMatchObject({ kind: 'found', params: { personId: 'luke' } });
    if (found.kind === 'found') expect(found.endpoint.topic).toBe('easer.get_/persons/{personId}');
  });

  it('keeps each template its own parameter names on a shared path', () => {
    expect(table.lookup('PUT', '/persons/luke')).toMatchObject({ kind: 'found', params: { id: 'luke' } });
  });

  it('prefers a static segment over a parameter', () => {
    expect(table.lookup('GET', '/persons/me')).toMatchObject({ kind: 'found', params: {} });
  });

  it('matches segments that mix text and parameters', () => {
    expect(table.lookup('GET', '/files/report.json')).toMatchObject({ kind: 'found', params: { name: 'report' } });
  });

  it('decodes parameters and matches several of them', () => {
    expect(table.lookup('GET', '/a/one%20two/b/%C3%A9')).toMatchObject({
      kind: 'found',
      params: { x: 'one two', y: 'é' },
    });
  });

  it('ignores case in static segments and a trailing slash, as Express does', () => {
    expect(table.lookup('GET', '/PERSONS/')).toMatchObject({ kind: 'found' });
  });

  it('serves HEAD with the GET endpoint', () => {
    const found = table.lookup('HEAD', '/persons');
    expect(found.kind === 'found' && found.endpoint.desc.method).toBe('get');
  });

  it('answers a method the API does not describe with the Allow list', () => {
    expect(table.lookup('DELETE', '/persons')).toEqual({
      kind: 'method-not-allowed',
      allow: 'GET, HEAD, OPTIONS, POST',
      template: '/persons',
    });
    expect(table.lookup('OPTIONS', '/persons/x')).toMatchObject({ kind: 'options', allow: 'GET, HEAD, OPTIONS, PUT' });
  });

  it('names a described path by its template for a method it does not describe, and for OPTIONS', () => {
    expect(table.lookup('PATCH', '/PERSONS/')).toMatchObject({ kind: 'method-not-allowed', template: '/persons' });
    expect(table.lookup('OPTIONS', '/files/a.json')).toMatchObject({ kind: 'options', template: '/files/{name}.json' });
    // Two templates on one path (their parameters named apart): the first described names it.
    expect(table.lookup('OPTIONS', '/persons/x')).toMatchObject({ template: '/persons/{personId}' });
  });

  it('finds nothing for unknown paths, an empty parameter or a malformed escape', () => {
    expect(table.lookup('GET', '/nope')).toEqual({ kind: 'not-found' });
    expect(table.lookup('GET', '/a//b/y')).toEqual({ kind: 'not-found' });
    expect(table.lookup('GET', '/persons/%E0%A4%A')).toEqual({ kind: 'bad-path' });
  });

  it('serves only under the base path', () => {
    const based = createRouteTable([endpoint('get', '/persons')], { basePath: '/api/v1/', topicPrefix: 'easer' });
    expect(based.lookup('GET', '/api/v1/persons')).toMatchObject({ kind: 'found' });
    expect(based.lookup('GET', '/persons')).toEqual({ kind: 'not-found' });
    expect(based.lookup('GET', '/api/v1x/persons')).toEqual({ kind: 'not-found' });
  });

  it('precomputes the message prefix with the endpoint descriptor', () => {
    const found = table.lookup('POST', '/persons');
    if (found.kind !== 'found') throw new Error('not found');
    const message = JSON.parse(`${found.endpoint.messagePrefix}{}}`);
    expect(message).toMatchObject({
      topic: 'easer.post_/persons',
      method: 'post',
      uri: '/persons',
      endpointDesc: { uri: '/persons' },
    });
  });
});
