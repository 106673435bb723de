import { writeFile } from 'node:fs/promises';

/** Writes an OpenAPI file with `GET /hello` and `extra` more endpoints (`/r<n>/{id}`, several methods each). */
export async function writeBenchApi(file: string, extra = 0): Promise<void> {
  const operation = {
    responses: { '200': { description: 'ok', content: { 'application/json': { schema: { type: 'object' } } } } },
  };
  const paths: Record<string, unknown> = { '/hello': { get: operation } };
  for (let i = 0; i < Math.ceil(extra / 4); i++) {
    paths[`/r${i}/{id}`] = {
      parameters: [{ name: 'id', in: 'path', required: true, schema: { type: 'string' } }],
      get: operation,
      put: operation,
      post: operation,
      delete: operation,
    };
  }
  await writeFile(file, JSON.stringify({ openapi: '3.0.3', info: { title: 'bench', version: '1' }, paths }));
}

/** The pet `GET /pets/{petId}` answers, the example of its 200 response. */
export const PET = {
  id: 42,
  name: 'Rex',
  tag: 'dog',
  status: 'available',
  birthDate: '2021-04-12',
  owner: { id: 7, name: 'Ada Lovelace', email: 'ada@example.com' },
};

/** Where the mock benchmark loads both mocks: the gateway's -m and Prism serve it from the same document. */
export const PET_PATH = `/pets/${PET.id}`;

const errorResponse = (description: string, example: { code: string; error: string }) => ({
  description,
  content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' }, example } },
});

/**
 * Writes a small pet store as APIs are written: shared schemas by `$ref`, parameters with their schemas, several
 * responses per operation, examples. Prism and the gateway's -m mock the same file.
 */
export async function writePetApi(file: string): Promise<void> {
  const pets = [PET, { ...PET, id: 43, name: 'Tom', tag: 'cat', status: 'pending' }];
  const document = {
    openapi: '3.0.3',
    info: { title: 'Pet store', version: '1.0.0' },
    paths: {
      '/pets': {
        get: {
          operationId: 'listPets',
          parameters: [
            { name: 'limit', in: 'query', schema: { type: 'integer', minimum: 1, maximum: 100, default: 20 } },
            { name: 'status', in: 'query', schema: { $ref: '#/components/schemas/Status' } },
          ],
          responses: {
            '200': {
              description: 'a page of pets',
              headers: {
                'x-next': { description: 'the next page', schema: { type: 'string' }, example: '/pets?page=2' },
              },
              content: {
                'application/json': {
                  schema: { type: 'array', items: { $ref: '#/components/schemas/Pet' } },
                  example: pets,
                },
              },
            },
            default: errorResponse('unexpected error', { code: 'INTERNAL', error: 'something went wrong' }),
          },
        },
      },
      '/pets/{petId}': {
        get: {
          operationId: 'showPetById',
          parameters: [
            { name: 'petId', in: 'path', required: true, schema: { type: 'integer', format: 'int64', minimum: 1 } },
          ],
          responses: {
            '200': {
              description: 'the pet',
              content: { 'application/json': { schema: { $ref: '#/components/schemas/Pet' }, example: PET } },
            },
            '404': errorResponse('no such pet', { code: 'NOT_FOUND', error: 'no pet 42' }),
            default: errorResponse('unexpected error', { code: 'INTERNAL', error: 'something went wrong' }),
          },
        },
      },
    },
    components: {
      schemas: {
        Status: { type: 'string', enum: ['available', 'pending', 'sold'] },
        Owner: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer', format: 'int64' },
            name: { type: 'string' },
            email: { type: 'string', format: 'email' },
          },
        },
        Pet: {
          type: 'object',
          required: ['id', 'name'],
          properties: {
            id: { type: 'integer', format: 'int64' },
            name: { type: 'string', maxLength: 64 },
            tag: { type: 'string' },
            status: { $ref: '#/components/schemas/Status' },
            birthDate: { type: 'string', format: 'date' },
            owner: { $ref: '#/components/schemas/Owner' },
          },
        },
        Error: {
          type: 'object',
          required: ['code', 'error'],
          properties: { code: { type: 'string' }, error: { type: 'string' } },
        },
      },
    },
  };
  await writeFile(file, JSON.stringify(document, null, 2));
}
