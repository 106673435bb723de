/**
 * The API descriptions the reply check is tested against: persons (OpenAPI 3.0: `nullable`, formats, enums,
 * `additionalProperties: false`, a `oneOf`, a required header) and things (OpenAPI 3.1: type arrays).
 */
const person = {
  type: 'object',
  required: ['id', 'name'],
  additionalProperties: false,
  properties: {
    id: { type: 'string', format: 'uuid' },
    name: { type: 'string' },
    nickname: { type: 'string', nullable: true },
    status: { type: 'string', enum: ['active', 'retired'] },
    email: { type: 'string', format: 'email' },
    tags: { type: 'array', items: { type: 'string' } },
    pet: {
      oneOf: [
        { type: 'object', required: ['kind'], additionalProperties: false, properties: { kind: { type: 'string' } } },
        { type: 'string', pattern: '^dog' },
      ],
    },
  },
};

export const PERSONS_API = {
  openapi: '3.0.3',
  info: { title: 'persons', version: '1' },
  paths: {
    '/persons': {
      get: {
        operationId: 'listPersons',
        responses: {
          '200': {
            description: 'the persons',
            headers: {
              'X-Rate-Limit': { required: true, schema: { type: 'integer', minimum: 0 } },
              'X-Page': { schema: { type: 'integer' } },
            },
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  required: ['items'],
                  additionalProperties: false,
                  properties: { items: { type: 'array', items: { $ref: '#/components/schemas/Person' } } },
                },
              },
            },
          },
          '4XX': {
            description: 'refused',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
    },
    '/persons/{id}': {
      get: {
        responses: {
          '200': {
            description: 'one',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Person' } } },
          },
          default: {
            description: 'refused',
            content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
          },
        },
      },
      delete: { responses: { '204': { description: 'gone' } } },
    },
  },
  components: {
    schemas: {
      Person: person,
      Error: {
        type: 'object',
        required: ['error'],
        properties: { error: { type: 'string' }, code: { type: 'string' } },
      },
    },
  },
};

export const THINGS_API = {
  openapi: '3.1.0',
  info: { title: 'things', version: '1' },
  paths: {
    '/things': {
      get: {
        operationId: 'listThings',
        responses: {
          '200': {
            description: 'a thing',
            content: {
              'application/json': {
                schema: {
                  type: 'object',
                  properties: {
                    code: { type: ['integer', 'null'] },
                    label: { type: 'string' },
                    size: { type: 'number' },
                  },
                },
              },
            },
          },
        },
      },
    },
  },
};

/** A person the persons API accepts. */
export const GOOD_PERSON = {
  id: '0b7e6f4e-58d6-4f0e-9a4c-3f1f4a7f0c11',
  name: 'Ada',
  nickname: null,
  status: 'active',
  email: 'ada@example.org',
  tags: ['a', 'b', 'c'],
  pet: { kind: 'cat' },
};
