import { toTopic, type JsonObject } from '@restbus/infra';
import type { ApiOperation } from './api-model';
import { buildApiModel } from './build-api-model';
import { nameOperation } from './name-operation';

const byName = (operations: ApiOperation[], name: string): ApiOperation => {
  const found = operations.find((operation) => operation.name === name);
  if (!found) throw new Error(`no operation ${name} among ${operations.map((operation) => operation.name).join(', ')}`);
  return found;
};

/** A declared scheme as the model gives it: its fields, no x- members, and where it is declared. */
const declared = (file: string, pointer: string[], fields: Record<string, string>) => ({
  ...fields,
  extensions: {},
  source: { file, pointer },
});

describe('buildApiModel() of a Swagger 2.0 document', () => {
  const pet = { type: 'object', properties: { name: { type: 'string' } } };
  const document: JsonObject = {
    swagger: '2.0',
    info: { title: 'Pets', version: 2 },
    consumes: ['application/json'],
    produces: ['application/json', 'application/xml'],
    securityDefinitions: { key: { type: 'apiKey', name: 'X-Key', in: 'header' }, basic: { type: 'basic' } },
    security: [{ key: [] }],
    definitions: { Pet: pet },
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          parameters: [
            {
              name: 'tags',
              in: 'query',
              required: true,
              type: 'array',
              items: { type: 'string' },
              collectionFormat: 'multi',
              description: 'd',
            },
            { name: 'limit', in: 'query', type: 'integer', format: 'int32', minimum: 1, allowEmptyValue: true },
            { name: 'ids', in: 'path', type: 'array', items: { type: 'integer' }, collectionFormat: 'pipes' },
          ],
          responses: {
            200: {
              description: 'the pets',
              schema: { type: 'array', items: pet },
              examples: { 'application/json': [{ name: 'a' }], 'text/csv': 'name\na' },
              headers: { 'X-Rate': { type: 'integer', format: 'int32', description: 'calls left' } },
            },
            204: { description: 'no body' },
          },
        },
        post: {
          consumes: ['application/json', 'application/x-yaml'],
          security: [{ basic: [] }],
          parameters: [{ name: 'pet', in: 'body', required: true, description: 'the new pet', schema: pet }],
          responses: { 201: { description: 'made' } },
        },
      },
      '/uploads': {
        post: {
          consumes: ['multipart/form-data', 'application/json'],
          parameters: [
            { name: 'file', in: 'formData', type: 'file', required: true },
            { name: 'note', in: 'formData', type: 'string', maxLength: 10, allowEmptyValue: true },
            { name: 'tags', in: 'formData', type: 'array', items: { type: 'string' }, collectionFormat: 'pipes' },
          ],
          responses: { default: { description: 'whatever happened' } },
        },
      },
    },
  };
  const model = buildApiModel(document, { file: 'pets.json', dialect: '2.0', topicPrefix: 'easer' });

  it('reads the title, the version as text, and the definitions as named schemas', () => {
    expect(model).toMatchObject({ file: 'pets.json', dialect: '2.0', title: 'Pets', version: '2' });
    expect(model.schemas).toEqual({ Pet: pet });
    expect(model.schemaRoot).toBe(document);
  });

  it('gathers inline parameter schemas, turns collectionFormat into style and explode, and says whether a query value may be empty', () => {
    const { parameters } = byName(model.operations, 'listPets');
    expect(parameters.query).toEqual([
      {
        name: 'tags',
        in: 'query',
        required: true,
        schema: { type: 'array', items: { type: 'string' } },
        style: 'form',
        explode: true,
        allowEmptyValue: false,
        description: 'd',
        examples: [],
      },
      {
        name: 'limit',
        in: 'query',
        required: false,
        schema: { type: 'integer', format: 'int32', minimum: 1 },
        style: 'form',
        explode: false,
        allowEmptyValue: true,
        examples: [],
      },
    ]);
    expect(parameters.path).toEqual([
      expect.objectContaining({ name: 'ids', required: true, style: 'pipeDelimited', explode: false }),
    ]);
    expect(parameters.header).toEqual([]);
  });

  it('gives a body parameter under each type the operation consumes, and is no parameter itself', () => {
    const post = byName(model.operations, 'postPets');
    expect(post.requestBody).toEqual({
      required: true,
      description: 'the new pet',
      content: {
        'application/json': { schema: pet, examples: [] },
        'application/x-yaml': { schema: pet, examples: [] },
      },
    });
    expect(Object.values(post.parameters).flat()).toEqual([]);
  });

  it("reads a body parameter's x-example (Swagger 2 has no example there) as its example", () => {
    const swagger: JsonObject = {
      swagger: '2.0',
      info: { title: 'T', version: '1' },
      paths: {
        '/pets': {
          post: {
            parameters: [{ name: 'pet', in: 'body', schema: pet, 'x-example': { name: 'Rex' } }],
            responses: { 201: { description: 'made' } },
          },
        },
      },
    };
    const [operation] = buildApiModel(swagger, { file: 'x.json', dialect: '2.0', topicPrefix: 'easer' }).operations;
    expect(operation.requestBody?.content['application/json'].examples).toEqual([
      { name: 'default', value: { name: 'Rex' } },
    ]);
  });

  it('gives formData parameters as one object schema under the form types consumed, their collectionFormat and allowEmptyValue as its encoding', () => {
    const upload = byName(model.operations, 'postUploads');
    expect(upload.requestBody).toEqual({
      required: true,
      content: {
        'multipart/form-data': {
          schema: {
            type: 'object',
            properties: {
              file: { type: 'file' },
              note: { type: 'string', maxLength: 10 },
              tags: { type: 'array', items: { type: 'string' } },
            },
            required: ['file'],
          },
          encoding: {
            file: { allowEmptyValue: false },
            note: { allowEmptyValue: true },
            tags: { style: 'pipeDelimited', explode: false, allowEmptyValue: false },
          },
          examples: [],
        },
      },
    });
  });

  it('gives a response schema under each type produced, and its examples under their own type', () => {
    const [ok] = byName(model.operations, 'listPets').responses;
    const schema = { type: 'array', items: pet };
    expect(ok).toEqual({
      status: '200',
      key: '200',
      description: 'the pets',
      content: {
        'application/json': { schema, examples: [{ name: 'default', value: [{ name: 'a' }] }] },
        'application/xml': { schema, examples: [] },
        'text/csv': { schema, examples: [{ name: 'default', value: 'name\na' }] },
      },
      headers: {
        'X-Rate': {
          required: false,
          schema: { type: 'integer', format: 'int32' },
          description: 'calls left',
          examples: [],
        },
      },
    });
  });

  it('gives a response with neither schema nor examples no content, whatever the operation produces', () => {
    const responses = byName(model.operations, 'listPets').responses;
    expect(responses.find(({ status }) => status === '204')).toEqual({
      status: '204',
      key: '204',
      description: 'no body',
      content: {},
      headers: {},
    });
    expect(byName(model.operations, 'postUploads').responses).toEqual([
      { status: 'default', key: 'default', description: 'whatever happened', content: {}, headers: {} },
    ]);
  });

  it('resolves security to the declared schemes, the document-level one where an operation has none', () => {
    expect(byName(model.operations, 'listPets').security).toEqual([
      [
        {
          name: 'key',
          scheme: declared('pets.json', ['securityDefinitions', 'key'], {
            type: 'apiKey',
            name: 'X-Key',
            in: 'header',
          }),
          scopes: [],
        },
      ],
    ]);
    expect(byName(model.operations, 'postPets').security).toEqual([
      [
        {
          name: 'basic',
          scheme: declared('pets.json', ['securityDefinitions', 'basic'], { type: 'basic' }),
          scopes: [],
        },
      ],
    ]);
  });
});

describe('buildApiModel() of an OpenAPI 3.x document', () => {
  const person = { type: 'object', required: ['name'], properties: { name: { type: 'string' } } };
  const problem = { type: 'object', properties: { error: { type: 'string' } } };
  const document: JsonObject = {
    openapi: '3.0.3',
    info: { title: 'Persons', version: '1.0' },
    components: {
      schemas: { Person: person },
      securitySchemes: { bearer: { type: 'http', scheme: 'Bearer' }, oauth: { type: 'oauth2', flows: {} } },
    },
    security: [{ bearer: [] }],
    paths: {
      '/persons/{id}': {
        parameters: [
          { name: 'id', in: 'path', required: true, schema: { type: 'string' } },
          { name: 'X-Trace', in: 'header', schema: { type: 'string' }, description: 'from the path item' },
          { name: 'lang', in: 'query', schema: { type: 'string' } },
        ],
        get: {
          parameters: [{ name: 'X-Trace', in: 'header', required: true, schema: { type: 'integer' } }],
          security: [{ oauth: ['read', 'write'] }, {}],
          responses: {
            '200': {
              description: 'the person',
              content: { 'application/json': { schema: person, example: { name: 'Ada' } } },
              headers: {
                ETag: { required: true, schema: { type: 'string' } },
                'X-Rate': { schema: { type: 'integer' } },
              },
            },
            '4xx': { description: 'a client error', content: { 'application/problem+json': { schema: problem } } },
            default: { description: 'anything else' },
          },
        },
        put: {
          security: [],
          requestBody: {
            required: true,
            description: 'the new state',
            content: {
              'application/json': {
                schema: person,
                examples: { ada: { summary: 'a person', value: { name: 'Ada' } }, only: { externalValue: 'x.json' } },
              },
            },
          },
          responses: { '204': { description: 'replaced' } },
        },
        delete: { 'x-restbus-subject': 'people.remove', responses: { '204': { description: 'gone' } } },
      },
    },
  };
  const model = buildApiModel(document, { file: 'persons.yml', dialect: '3.0', topicPrefix: 'easer' });
  const get = byName(model.operations, 'getPersonsById');

  it('names operations without operationId from method and path, and makes their subjects', () => {
    expect(model.operations.map(({ name, method, path, subject }) => ({ name, method, path, subject }))).toEqual([
      {
        name: 'getPersonsById',
        method: 'get',
        path: '/persons/{id}',
        subject: toTopic('easer', 'get', '/persons/{id}'),
      },
      {
        name: 'putPersonsById',
        method: 'put',
        path: '/persons/{id}',
        subject: toTopic('easer', 'put', '/persons/{id}'),
      },
      { name: 'deletePersonsById', method: 'delete', path: '/persons/{id}', subject: 'people.remove' },
    ]);
    expect(get.source).toEqual({ file: 'persons.yml', pointer: ['paths', '/persons/{id}', 'get'] });
  });

  it('merges the path item parameters into each operation, the operation winning on name and location', () => {
    expect(get.parameters.path).toEqual([
      { name: 'id', in: 'path', required: true, schema: { type: 'string' }, examples: [] },
    ]);
    expect(get.parameters.header).toEqual([
      { name: 'X-Trace', in: 'header', required: true, schema: { type: 'integer' }, examples: [] },
    ]);
    expect(get.parameters.query.map(({ name }) => name)).toEqual(['lang']);
    expect(byName(model.operations, 'putPersonsById').parameters.header).toEqual([
      {
        name: 'X-Trace',
        in: 'header',
        required: false,
        schema: { type: 'string' },
        description: 'from the path item',
        examples: [],
      },
    ]);
  });

  it('reads a request body with its examples, leaving out those with no value', () => {
    expect(byName(model.operations, 'putPersonsById').requestBody).toEqual({
      required: true,
      description: 'the new state',
      content: {
        'application/json': {
          schema: person,
          examples: [{ name: 'ada', summary: 'a person', value: { name: 'Ada' } }],
        },
      },
    });
    expect(get.requestBody).toBeUndefined();
  });

  it("reads a form media type's encoding: part content types, style, explode and allowReserved", () => {
    const form = {
      openapi: '3.0.3',
      info: { title: 'forms', version: '1' },
      paths: {
        '/forms': {
          post: {
            requestBody: {
              content: {
                'application/x-www-form-urlencoded': {
                  schema: { type: 'object' },
                  encoding: {
                    tags: { style: 'spaceDelimited', explode: false, allowReserved: true },
                    meta: { contentType: 'application/json', headers: {} },
                  },
                },
              },
            },
            responses: { 204: { description: 'taken' } },
          },
        },
      },
    };
    const [operation] = buildApiModel(form, { file: 'f.yml', dialect: '3.0', topicPrefix: 'easer' }).operations;
    expect(operation.requestBody?.content['application/x-www-form-urlencoded'].encoding).toEqual({
      tags: { style: 'spaceDelimited', explode: false, allowReserved: true },
      meta: { contentType: 'application/json' },
    });
  });

  it('reads responses by status, ranges upper-cased, with their media, examples and headers', () => {
    expect(get.responses).toEqual([
      {
        status: '200',
        key: '200',
        description: 'the person',
        content: { 'application/json': { schema: person, examples: [{ name: 'default', value: { name: 'Ada' } }] } },
        headers: {
          ETag: { required: true, schema: { type: 'string' }, examples: [] },
          'X-Rate': { required: false, schema: { type: 'integer' }, examples: [] },
        },
      },
      {
        status: '4XX',
        key: '4xx',
        description: 'a client error',
        content: { 'application/problem+json': { schema: problem, examples: [] } },
        headers: {},
      },
      { status: 'default', key: 'default', description: 'anything else', content: {}, headers: {} },
    ]);
  });

  it("resolves security alternatives to schemes: the operation's own, [] for none, else the document's", () => {
    const schemes = ['components', 'securitySchemes'];
    expect(get.security).toEqual([
      [
        {
          name: 'oauth',
          scheme: declared('persons.yml', [...schemes, 'oauth'], { type: 'oauth2' }),
          scopes: ['read', 'write'],
        },
      ],
      [],
    ]);
    expect(byName(model.operations, 'putPersonsById').security).toEqual([]);
    expect(byName(model.operations, 'deletePersonsById').security).toEqual([
      [
        {
          name: 'bearer',
          scheme: declared('persons.yml', [...schemes, 'bearer'], { type: 'http', scheme: 'bearer' }),
          scopes: [],
        },
      ],
    ]);
  });

  it('keeps the x- members of an operation as extensions', () => {
    expect(byName(model.operations, 'deletePersonsById').extensions).toEqual({ 'x-restbus-subject': 'people.remove' });
  });

  it('reads OpenAPI 3.1 the same way, with its schemas as they are (type arrays, booleans)', () => {
    const model31 = buildApiModel(
      {
        openapi: '3.1.0',
        info: { title: 'Flags', version: '3' },
        components: { schemas: { Flag: { type: ['boolean', 'null'] }, Anything: true } },
        paths: {
          '/flags/{name}': {
            patch: {
              operationId: 'setFlag',
              requestBody: { content: { 'application/json': { schema: { type: ['boolean', 'null'] } } } },
              responses: { '2XX': { description: 'set' } },
            },
          },
        },
      },
      { file: 'flags.yml', dialect: '3.1', topicPrefix: 'svc' },
    );
    expect(model31.schemas).toEqual({ Flag: { type: ['boolean', 'null'] }, Anything: true });
    const [setFlag] = model31.operations;
    expect(setFlag).toMatchObject({
      name: 'setFlag',
      operationId: 'setFlag',
      method: 'patch',
      subject: toTopic('svc', 'patch', '/flags/{name}'),
      requestBody: { required: false, content: { 'application/json': { schema: { type: ['boolean', 'null'] } } } },
      responses: [{ status: '2XX', content: {}, headers: {} }],
      security: [],
    });
  });
});

describe('names of operations without an operationId', () => {
  it.each([
    ['get', '/persons/{id}', 'getPersonsById'],
    ['post', '/person-groups', 'postPersonGroups'],
    ['get', '/', 'getRoot'],
    ['delete', '/a/{group_id}/b', 'deleteAByGroupIdB'],
  ])('%s %s is %s', (method, path, name) => {
    expect(nameOperation(method, path)).toBe(name);
  });

  it('gives a name already taken by an operationId or an earlier operation _2, _3', () => {
    const model = buildApiModel(
      {
        openapi: '3.0.3',
        info: { title: 'Clash', version: '1' },
        paths: {
          '/persons/{id}': { get: { responses: {} }, put: { operationId: 'getPersonsById', responses: {} } },
          '/persons/{name}': { get: { responses: {} } },
        },
      },
      { file: 'clash.yml', dialect: '3.0', topicPrefix: 'easer' },
    );
    expect(model.operations.map(({ name, method, path }) => `${name} ${method} ${path}`)).toEqual([
      'getPersonsById_2 get /persons/{id}',
      'getPersonsById put /persons/{id}',
      'getPersonsByName get /persons/{name}',
    ]);
  });
});

describe('buildApiModel() of what the mock and the load warnings need', () => {
  const build = (document: JsonObject, dialect: '2.0' | '3.0' = '3.0') =>
    buildApiModel(document, { file: 'api.yml', dialect, topicPrefix: 'easer' });

  it('reads a 3.x header example, and a named header example after it, leaving out those with no value', () => {
    const [operation] = build({
      openapi: '3.0.3',
      paths: {
        '/a': {
          get: {
            responses: {
              200: {
                description: 'ok',
                headers: {
                  'X-One': { schema: { type: 'string' }, example: 'one' },
                  'X-Two': {
                    schema: { type: 'string' },
                    examples: { far: { externalValue: 'https://example.com/x' }, near: { value: 'two' } },
                  },
                  'X-None': { schema: { type: 'string' } },
                },
              },
            },
          },
        },
      },
    }).operations;
    const { headers } = operation.responses[0];
    expect(headers['X-One'].examples).toEqual([{ name: 'default', value: 'one' }]);
    expect(headers['X-Two'].examples).toEqual([{ name: 'near', value: 'two' }]);
    expect(headers['X-None'].examples).toEqual([]);
  });

  it('reads a Swagger 2 header example, then its x-example, and keeps neither in the header schema', () => {
    const [operation] = build(
      {
        swagger: '2.0',
        paths: {
          '/a': {
            get: {
              responses: {
                200: {
                  description: 'ok',
                  headers: {
                    'X-Both': { type: 'integer', example: 1, 'x-example': 2 },
                    'X-Vendor': { type: 'string', 'x-example': 'v' },
                  },
                },
              },
            },
          },
        },
      },
      '2.0',
    ).operations;
    const { headers } = operation.responses[0];
    expect(headers['X-Both']).toEqual({
      required: false,
      schema: { type: 'integer' },
      examples: [
        { name: 'default', value: 1 },
        { name: 'x-example', value: 2 },
      ],
    });
    expect(headers['X-Vendor'].examples).toEqual([{ name: 'default', value: 'v' }]);
  });

  it('keeps a header, a security scheme, a media type, an example and a schema named __proto__ as any other', () => {
    // JSON.parse makes __proto__ an own member, as a YAML or JSON parser does.
    const document = JSON.parse(`{
      "openapi": "3.0.3",
      "components": {
        "securitySchemes": { "__proto__": { "type": "apiKey", "name": "X-Key", "in": "header" } },
        "schemas": { "__proto__": { "type": "string" } }
      },
      "paths": { "/a": { "get": {
        "security": [{ "__proto__": [] }],
        "responses": { "200": {
          "description": "ok",
          "headers": { "__proto__": { "schema": { "type": "string" } } },
          "content": { "__proto__": { "examples": { "__proto__": { "value": 1 } } } }
        } }
      } } }
    }`) as JsonObject;
    const model = build(document);
    const [response] = model.operations[0].responses;
    expect(Object.keys(response.headers)).toEqual(['__proto__']);
    expect(Object.hasOwn(response.headers, '__proto__')).toBe(true);
    expect(Object.keys(response.content)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(response.content, '__proto__')?.value).toEqual({
      examples: [{ name: '__proto__', value: 1 }],
    });
    expect(Object.keys(model.schemas)).toEqual(['__proto__']);
    expect(model.operations[0].security).toEqual([
      [
        {
          name: '__proto__',
          scheme: declared('api.yml', ['components', 'securitySchemes', '__proto__'], {
            type: 'apiKey',
            name: 'X-Key',
            in: 'header',
          }),
          scopes: [],
        },
      ],
    ]);
  });

  it('keeps a Swagger 2 produced type named __proto__, and reads no example for it from the prototype', () => {
    const document = JSON.parse(`{
      "swagger": "2.0",
      "produces": ["__proto__"],
      "paths": { "/a": { "get": { "responses": { "200": { "description": "ok", "schema": { "type": "string" } } } } } }
    }`) as JsonObject;
    const [response] = build(document, '2.0').operations[0].responses;
    expect(Object.keys(response.content)).toEqual(['__proto__']);
    expect(Object.getOwnPropertyDescriptor(response.content, '__proto__')?.value).toEqual({
      schema: { type: 'string' },
      examples: [],
    });
  });

  it("gives an apiKey scheme's in as written, path included, and none where none is written", () => {
    const model = build({
      openapi: '3.0.3',
      components: {
        securitySchemes: {
          inPath: { type: 'apiKey', name: 'key', in: 'path' },
          noIn: { type: 'apiKey', name: 'X-Key' },
        },
      },
      paths: { '/a': { get: { security: [{ inPath: [], noIn: [] }], responses: { 204: { description: 'ok' } } } } },
    });
    expect(model.operations[0].security).toEqual([
      [
        {
          name: 'inPath',
          scheme: declared('api.yml', ['components', 'securitySchemes', 'inPath'], {
            type: 'apiKey',
            name: 'key',
            in: 'path',
          }),
          scopes: [],
        },
        {
          name: 'noIn',
          scheme: declared('api.yml', ['components', 'securitySchemes', 'noIn'], { type: 'apiKey', name: 'X-Key' }),
          scopes: [],
        },
      ],
    ]);
  });

  it("reads what a gateway verifies a scheme by: openIdConnectUrl, bearerFormat and the scheme's own x- members", () => {
    const jwt = { issuer: 'https://id.example', jwksUri: 'https://id.example/jwks', audience: 'pets' };
    const model = build({
      openapi: '3.1.0',
      components: {
        securitySchemes: {
          oidc: { type: 'openIdConnect', openIdConnectUrl: 'https://id.example/.well-known/openid-configuration' },
          bearer: { type: 'http', scheme: 'Bearer', bearerFormat: 'JWT', 'x-restbus-jwt': jwt, description: 'tokens' },
        },
      },
      paths: {
        '/a': { get: { security: [{ oidc: ['read'] }, { bearer: [] }], responses: { 204: { description: 'ok' } } } },
      },
    });
    const at = ['components', 'securitySchemes'];
    expect(model.operations[0].security).toEqual([
      [
        {
          name: 'oidc',
          scheme: declared('api.yml', [...at, 'oidc'], {
            type: 'openIdConnect',
            openIdConnectUrl: 'https://id.example/.well-known/openid-configuration',
          }),
          scopes: ['read'],
        },
      ],
      [
        {
          name: 'bearer',
          scheme: {
            ...declared('api.yml', [...at, 'bearer'], { type: 'http', scheme: 'bearer', bearerFormat: 'JWT' }),
            extensions: { 'x-restbus-jwt': jwt },
          },
          scopes: [],
        },
      ],
    ]);
  });

  it('keeps the response key as written next to its status, a range upper-cased', () => {
    const model = build({
      openapi: '3.0.3',
      paths: { '/a': { get: { responses: { '2xx': { description: 'ok' }, default: { description: 'else' } } } } },
    });
    expect(model.operations[0].responses.map(({ key, status }) => ({ key, status }))).toEqual([
      { key: '2xx', status: '2XX' },
      { key: 'default', status: 'default' },
    ]);
  });
});

describe('buildApiModel() of streams (x-restbus-stream with a text/event-stream response)', () => {
  const event = { type: 'object', properties: { id: { type: 'string' } } };
  const streamOf = (openapi: string, media: JsonObject, extra: JsonObject = {}): JsonObject => ({
    openapi,
    info: { title: 'Events', version: '1' },
    paths: {
      '/persons/{id}/events': {
        parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
        get: {
          'x-restbus-stream': { subject: 'persons.{id}.events', stream: 'PERSONS' },
          responses: {
            '200': { description: 'the events', content: { 'text/event-stream': media } },
            '404': { description: 'none', content: { 'application/json': { schema: { type: 'object' } } } },
          },
          ...extra,
        },
      },
    },
  });
  const read = (document: JsonObject, dialect: '3.0' | '3.1') =>
    buildApiModel(document, { file: 'events.yml', dialect, topicPrefix: 'easer' }).operations[0];

  it("reads a 3.2 sequential media type's itemSchema and gives the stream its subject, stream and the item's examples", () => {
    const item = { ...event, examples: [{ id: 'a' }, { id: 'b' }] };
    const operation = read(streamOf('3.2.0', { itemSchema: item, examples: { one: { value: { id: 'x' } } } }), '3.1');
    expect(operation.responses[0].content['text/event-stream']).toEqual({
      itemSchema: item,
      examples: [{ name: 'one', value: { id: 'x' } }],
    });
    expect(operation.stream).toEqual({
      subject: 'persons.{id}.events',
      stream: 'PERSONS',
      itemSchema: item,
      examples: [
        { name: 'example-1', value: { id: 'a' } },
        { name: 'example-2', value: { id: 'b' } },
      ],
    });
  });

  it("accepts itemSchema in a 3.0 document, its lone example first, and the media type's examples when it has none", () => {
    const withExample = read(streamOf('3.0.3', { itemSchema: { ...event, example: { id: 'e' } } }), '3.0');
    expect(withExample.stream?.examples).toEqual([{ name: 'default', value: { id: 'e' } }]);
    const mediaExamples = read(
      streamOf('3.0.3', { itemSchema: event, example: { id: 'm' }, examples: { two: { value: { id: 'n' } } } }),
      '3.0',
    );
    expect(mediaExamples.stream).toEqual({
      subject: 'persons.{id}.events',
      stream: 'PERSONS',
      itemSchema: event,
      examples: [
        { name: 'default', value: { id: 'm' } },
        { name: 'two', value: { id: 'n' } },
      ],
    });
  });

  it('takes the schema of the event-stream media type in a 3.1 document that has no itemSchema, and no stream name when none is given', () => {
    const document = streamOf('3.1.0', { schema: event });
    const get = asGet(document);
    get['x-restbus-stream'] = { subject: 'persons.{id}.events' };
    expect(read(document, '3.1').stream).toEqual({ subject: 'persons.{id}.events', itemSchema: event, examples: [] });
  });

  it('finds the event stream under a 2XX range and a media type with parameters, written in any case', () => {
    const document = streamOf('3.1.0', {});
    const get = asGet(document);
    get.responses = {
      '2XX': { description: 'e', content: { 'Text/Event-Stream; charset=utf-8': { itemSchema: event } } },
    };
    expect(read(document, '3.1').stream?.itemSchema).toEqual(event);
  });

  it("reads OAS 3.2's event shape (an object with data, event, id) as its data's contentSchema, and examples by their data", () => {
    const person = { type: 'object', properties: { name: { type: 'string' } } };
    const sseEvent = {
      type: 'object',
      required: ['data'],
      properties: {
        event: { type: 'string' },
        id: { type: 'string' },
        data: { type: 'string', contentMediaType: 'application/json', contentSchema: person },
      },
      examples: [{ event: 'created', data: '{"name":"Ada"}' }, { data: 'not json' }],
    };
    expect(read(streamOf('3.2.0', { itemSchema: sseEvent }), '3.1').stream).toEqual({
      subject: 'persons.{id}.events',
      stream: 'PERSONS',
      itemSchema: person,
      examples: [
        { name: 'example-1', value: { name: 'Ada' } },
        { name: 'example-2', value: 'not json' },
      ],
    });
    const plainData = { type: 'object', properties: { data: { type: 'string', maxLength: 9 } } };
    expect(read(streamOf('3.2.0', { itemSchema: plainData }), '3.1').stream?.itemSchema).toEqual({
      type: 'string',
      maxLength: 9,
    });
  });

  it('gives no stream to an operation that is not a GET, has no event-stream 2xx response, or no subject', () => {
    const post = streamOf('3.1.0', { itemSchema: event });
    const paths = post.paths as JsonObject;
    const item = paths['/persons/{id}/events'] as JsonObject;
    item.post = item.get;
    delete item.get;
    expect(read(post, '3.1').stream).toBeUndefined();
    const json = streamOf('3.1.0', {});
    asGet(json).responses = { '200': { description: 'j', content: { 'application/json': { schema: event } } } };
    expect(read(json, '3.1').stream).toBeUndefined();
    const noSubject = streamOf('3.1.0', { itemSchema: event });
    asGet(noSubject)['x-restbus-stream'] = { stream: 'PERSONS' };
    expect(read(noSubject, '3.1').stream).toBeUndefined();
    const plain = streamOf('3.1.0', { itemSchema: event });
    delete asGet(plain)['x-restbus-stream'];
    expect(read(plain, '3.1').stream).toBeUndefined();
  });
});

function asGet(document: JsonObject): JsonObject {
  return ((document.paths as JsonObject)['/persons/{id}/events'] as JsonObject).get as JsonObject;
}
