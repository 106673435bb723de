import type { JsonObject } from '@restbus/infra';
import type { ApiModel, ApiOperation, Dialect } from './api-model';
import { buildApiModel } from './build-api-model';

// buildApiModel on its own, fed small documents as the loader hands them over (dereferenced, not validated): where
// each parameter lands, what a request body and a response become, and how a malformed part reads as absent.

const build = (document: JsonObject, dialect: Dialect = '3.0'): ApiModel =>
  buildApiModel(document, { file: 'api.yaml', dialect, topicPrefix: 'app' });

const only = (model: ApiModel): ApiOperation => {
  expect(model.operations).toHaveLength(1);
  return model.operations[0];
};

const names = (operation: ApiOperation): Record<string, string[]> =>
  Object.fromEntries(
    Object.entries(operation.parameters).map(([location, list]) => [location, list.map((parameter) => parameter.name)]),
  );

describe('buildApiModel() puts each parameter where it is sent', () => {
  const document = {
    openapi: '3.0.3',
    info: { title: 'Places', version: '1' },
    paths: {
      '/places/{id}': {
        get: {
          parameters: [
            { name: 'id', in: 'path', schema: { type: 'string' } },
            { name: 'q', in: 'query', schema: { type: 'string' } },
            { name: 'X-Trace', in: 'header', required: true, schema: { type: 'string' } },
            { name: 'session', in: 'cookie', schema: { type: 'string' } },
          ],
          responses: { '200': { description: 'the place' } },
        },
      },
    },
  };

  it('sorts path, query, header and cookie parameters into their own lists', () => {
    expect(names(only(build(document)))).toEqual({
      path: ['id'],
      query: ['q'],
      header: ['X-Trace'],
      cookie: ['session'],
    });
  });

  it('makes a path parameter required even where the document leaves required out, and others only when it says so', () => {
    const { parameters } = only(build(document));
    expect(parameters.path[0].required).toBe(true);
    expect(parameters.query[0].required).toBe(false);
    expect(parameters.header[0].required).toBe(true);
    expect(parameters.cookie[0].required).toBe(false);
  });

  it("reads a 3.x parameter given by content as that content's media type and schema", () => {
    const model = build({
      openapi: '3.1.0',
      paths: {
        '/search': {
          get: {
            parameters: [
              { name: 'filter', in: 'query', content: { 'application/json': { schema: { type: 'object' } } } },
            ],
            responses: {},
          },
        },
      },
    });
    const [filter] = only(model).parameters.query;
    expect(filter.content).toEqual({ mediaType: 'application/json', schema: { type: 'object' } });
    expect(filter.schema).toBeUndefined();
  });
});

describe('buildApiModel() of Swagger 2.0 request bodies and parameters', () => {
  it('gives a body parameter as a JSON request body when the document consumes nothing, and as no parameter', () => {
    const model = build(
      {
        swagger: '2.0',
        paths: {
          '/notes': {
            post: {
              parameters: [
                { name: 'note', in: 'body', schema: { type: 'string' } },
                { name: 'dry', in: 'query', type: 'boolean' },
              ],
              responses: { '201': { description: 'kept' } },
            },
          },
        },
      },
      '2.0',
    );
    const operation = only(model);
    expect(operation.requestBody).toEqual({
      required: false,
      content: { 'application/json': { schema: { type: 'string' }, examples: [] } },
    });
    expect(names(operation)).toEqual({ path: [], query: ['dry'], header: [], cookie: [] });
    expect(operation.parameters.query[0]).toMatchObject({ schema: { type: 'boolean' }, style: 'form', explode: false });
  });
});

describe('buildApiModel() reads a malformed document leniently: what is not the shape it should be is absent', () => {
  it('builds no operation when paths is no object, and none from a path item or an operation that is no object', () => {
    expect(build({ openapi: '3.0.0', paths: ['/a'] }).operations).toEqual([]);
    expect(build({ openapi: '3.0.0', paths: 'everything' }).operations).toEqual([]);
    const model = build({
      openapi: '3.0.0',
      paths: { '/a': 'nothing', '/b': { get: 'nothing', post: null, put: { responses: {} } } },
    });
    expect(model.operations.map(({ method, path }) => `${method} ${path}`)).toEqual(['put /b']);
  });

  it('leaves out a parameter with no name, a location that is none of the four, or no object at all', () => {
    const model = build({
      openapi: '3.0.0',
      paths: {
        '/a': {
          get: {
            parameters: [
              { in: 'query', schema: { type: 'string' } },
              { name: 'where', in: 'body', schema: { type: 'string' } },
              { name: 'how', in: 'Query' },
              'limit',
              null,
              { name: 'kept', in: 'query' },
            ],
            responses: {},
          },
        },
      },
    });
    expect(names(only(model))).toEqual({ path: [], query: ['kept'], header: [], cookie: [] });
  });

  it('leaves out a response that is no object, and reads content that is no object as none', () => {
    const model = build({
      openapi: '3.0.0',
      paths: {
        '/a': {
          get: {
            responses: { '200': { description: 'ok', content: 'json' }, '404': 'missing', '500': [] },
          },
        },
      },
    });
    expect(only(model).responses).toEqual([{ status: '200', key: '200', description: 'ok', content: {}, headers: {} }]);
  });

  it('gives no title, version, tags, security or request body where those are written with the wrong types', () => {
    const model = build({
      openapi: '3.0.0',
      info: { title: 7, version: { major: 1 } },
      security: 'everyone',
      paths: { '/a': { post: { tags: 'one', requestBody: 'text', responses: {} } } },
    });
    expect(model.title).toBe('');
    expect(model.version).toBe('');
    const operation = only(model);
    expect(operation.tags).toEqual([]);
    expect(operation.security).toEqual([]);
    expect(operation.requestBody).toBeUndefined();
  });

  it('leaves out a schema under definitions that is neither an object nor a boolean', () => {
    const model = build(
      { swagger: '2.0', definitions: { Good: { type: 'string' }, Open: true, Bad: 'string' }, paths: {} },
      '2.0',
    );
    expect(model.schemas).toEqual({ Good: { type: 'string' }, Open: true });
  });
});

describe('buildApiModel() of a stream (x-restbus-stream)', () => {
  const withEvent = (data: JsonObject): ApiOperation =>
    only(
      build(
        {
          openapi: '3.1.0',
          paths: {
            '/ticks': {
              get: {
                'x-restbus-stream': { subject: 'ticks.all' },
                responses: {
                  '200': {
                    description: 'ticks',
                    content: {
                      'text/event-stream': {
                        itemSchema: { type: 'object', properties: { data } },
                        example: { data: '{"n":1}' },
                      },
                    },
                  },
                },
              },
            },
          },
        },
        '3.1',
      ),
    );

  it("describes the events by the data's contentSchema and parses each example's data as JSON", () => {
    const stream = withEvent({ type: 'string', contentSchema: { type: 'object' } }).stream;
    expect(stream).toEqual({
      subject: 'ticks.all',
      itemSchema: { type: 'object' },
      examples: [{ name: 'default', value: { n: 1 } }],
    });
  });

  it('describes the events by the data schema itself when its contentSchema is not a schema', () => {
    const data = { type: 'string', contentMediaType: 'application/json', contentSchema: 'object' };
    expect(withEvent(data).stream?.itemSchema).toEqual(data);
  });
});
