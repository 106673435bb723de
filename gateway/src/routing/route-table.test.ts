import type { HttpMethod } from '@restbus/infra';
import { testEndpoint } from '../__tests__/start-test-gateway';
import type { AnsweredEndpoint } from '../call/call';
import { createRouteTable } from './route-table';

const endpoint = (method: HttpMethod, uri: string) => testEndpoint(method, uri, { responses: {} });
const answerFor = () => async () => {};

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
  { basePath: '/', answerFor },
);

describe('createRouteTable', () => {
  it("chooses each endpoint's answer once, when the table is built, and routes calls to it", () => {
    const chosen: string[] = [];
    const answers = new Map<string, () => Promise<void>>();
    const built = createRouteTable([endpoint('get', '/persons'), endpoint('post', '/persons')], {
      basePath: '/',
      answerFor: (compiled: AnsweredEndpoint) => {
        const name = `${compiled.source.model.method} ${compiled.topic}`;
        chosen.push(name);
        const answer = async () => {};
        answers.set(name, answer);
        return answer;
      },
    });
    expect(chosen).toEqual(['get easer.get_/persons', 'post easer.post_/persons']);
    for (let i = 0; i < 3; i++) built.lookup('GET', '/persons');
    expect(chosen).toHaveLength(2);
    const found = built.lookup('POST', '/persons');
    expect(found.kind === 'found' && found.endpoint.answer).toBe(answers.get('post easer.post_/persons'));
  });

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
    const based = createRouteTable([endpoint('get', '/persons')], {
      basePath: '/api/v1/',
      answerFor,
    });
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

  it("sends an operation's calls to its x-restbus-subject, where the generated service listens", () => {
    const overridden = testEndpoint('get', '/people', { 'x-restbus-subject': 'people.list', responses: {} });
    const routed = createRouteTable([overridden, endpoint('get', '/other')], {
      basePath: '/',
      answerFor,
    });
    expect(routed.endpoints.map(({ topic }) => topic)).toEqual(['people.list', 'easer.get_/other']);
    const found = routed.lookup('GET', '/people');
    if (found.kind !== 'found') throw new Error('not found');
    expect(JSON.parse(`${found.endpoint.messagePrefix}{}}`)).toMatchObject({ topic: 'people.list', uri: '/people' });
  });
});
