import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sample } from 'openapi-sampler';
import type { ApiEndpoint } from '../openapi/endpoint';
import { createSourceLocator } from '@restbus/openapi';
import { loadApi } from '../openapi/load-api';
import { createSchemaSampler } from './create-schema-sampler';
import { findMockWarnings } from './find-mock-warnings';

const API = `
openapi: 3.0.3
info: { title: bounds, version: '1' }
components:
  schemas:
    Node:
      type: object
      properties:
        name: { type: string, minLength: 3 }
        left: { $ref: '#/components/schemas/Node' }
        right: { $ref: '#/components/schemas/Node' }
        children: { type: array, minItems: 2, items: { $ref: '#/components/schemas/Node' } }
    Pet:
      type: object
      required: [name]
      properties:
        id: { type: integer, default: 1 }
        name: { type: string, example: Rex }
        tags: { type: array, items: { type: string, enum: [a, b] } }
        born: { type: string, format: date-time }
      allOf: [{ properties: { kind: { type: string, default: dog } } }]
paths:
  /tree:
    get:
      responses:
        '200': { description: a tree, content: { application/json: { schema: { $ref: '#/components/schemas/Node' } } } }
  /pets:
    get:
      responses:
        '200':
          description: pets
          headers:
            X-Total: { schema: { type: integer, minimum: 7 } }
            "X-Bad\\r\\nName": { schema: { type: string, example: v } }
            X-Huge: { schema: { type: array, minItems: 100000000, items: { type: string } } }
          content:
            application/json: { schema: { type: array, minItems: 3, items: { $ref: '#/components/schemas/Pet' } } }
        '500':
          description: failure
          content:
            application/json: { schema: { type: array, minItems: 2000, items: { type: array, minItems: 2000, items: { type: integer } } } }
            text/plain: { example: failed }
  /fine:
    get:
      responses:
        '200': { description: fine, content: { application/json: { example: { ok: true } } } }
        '404': { description: none, content: { application/json: { schema: { type: string, minLength: 400000000 } } } }
`;

let dir: string;
let endpoints: ApiEndpoint[];
beforeAll(async () => {
  dir = await mkdtemp(join(tmpdir(), 'restbus-mock-warnings-'));
  await writeFile(join(dir, 'api.yml'), API);
  endpoints = await loadApi(join(dir, 'api.yml'));
});
afterAll(() => rm(dir, { recursive: true, force: true }));

const schemaOf = (endpoint: ApiEndpoint, key: string): unknown =>
  endpoint.model.responses.find(({ status }) => status === key)?.content['application/json'].schema;

describe('createSchemaSampler', () => {
  it('builds the very value openapi-sampler builds, recursive schemas included', () => {
    const sampler = createSchemaSampler();
    for (const endpoint of endpoints.filter((candidate) => candidate.desc.uri !== '/fine')) {
      const schema = schemaOf(endpoint, '200');
      const expected = sample(schema as never, { quiet: true, skipWriteOnly: true }, endpoint.api.schemaRoot);
      const built = sampler.sample(schema, endpoint.api.schemaRoot);
      expect(built).toEqual({ sample: { json: JSON.stringify(expected), value: expected } });
    }
  });

  it('gives up a schema past its bound after bounded work, and remembers it', () => {
    const sampler = createSchemaSampler({ maxBytes: 1000, maxReads: 10_000 });
    const many = { type: 'array', minItems: 100, items: { type: 'string', default: 'x'.repeat(50) } };
    expect(sampler.sample(many, {})).toEqual({ tooLarge: 'larger than 1000 bytes' });
    const busy = { type: 'array', minItems: 400, items: { type: 'object', properties: { a: { type: 'integer' } } } };
    expect(sampler.sample(busy, {})).toEqual({ tooLarge: 'more than 10000 steps to build' });
    expect(sampler.sample(busy, {})).toEqual({ tooLarge: 'more than 10000 steps to build' });
    expect(sampler.sample({ type: 'integer', minimum: 3 }, {})).toEqual({ sample: { json: '3', value: 3 } });
  });
});

describe('findMockWarnings', () => {
  it('warns of every response body and header -m cannot build or send, and of nothing else', async () => {
    const warnings = await findMockWarnings(endpoints);
    expect(warnings.map(({ severity, path }) => [severity, path])).toEqual([
      ['warning', 'paths./pets.get.responses.200.headers.X-Bad\r\nName'],
      ['warning', 'paths./pets.get.responses.200.headers.X-Huge'],
      ['warning', 'paths./pets.get.responses.500.content.application/json.schema'],
      ['warning', 'paths./fine.get.responses.404.content.application/json.schema'],
    ]);
    expect(warnings[0].message).toBe(
      'the header name "X-Bad\\r\\nName" cannot be sent over HTTP: -m leaves the header out',
    );
    expect(warnings[2].message).toMatch(
      /^-m cannot build a body from this schema: it would be more than 250000 steps to build \(the bound is 1048576 bytes and 250000 steps\); the operation answers 500 MOCK_UNAVAILABLE when this response is asked for\. Give it an example$/,
    );
    expect(warnings[3].message).toMatch(/it would be larger than 1048576 bytes/);
    expect(warnings.every((warning) => warning.file === join(dir, 'api.yml'))).toBe(true);
  });

  it('stops after its time budget and says how far it got', async () => {
    const warnings = await findMockWarnings(endpoints, { budgetMs: -1 });
    expect(warnings).toEqual([
      {
        severity: 'warning',
        file: join(dir, 'api.yml'),
        path: '',
        message:
          '-m checked the answers of 0 of 3 operations within -1 ms; the others are checked when they are asked for',
      },
    ]);
  });

  it('places a warning of a range written in lower case at its line, with the key as written', async () => {
    const file = join(dir, 'range.yml');
    await writeFile(
      file,
      [
        'openapi: 3.0.3',
        'info: { title: range, version: "1" }',
        'paths:',
        '  /a:',
        '    get:',
        '      responses:',
        "        '2xx':",
        '          description: fine',
        '          headers:',
        '            X-Huge: { schema: { type: array, minItems: 100000000, items: { type: string } } }',
      ].join('\n'),
    );
    const warnings = await findMockWarnings(await loadApi(file), { locate: createSourceLocator() });
    expect(warnings.map(({ path, line, column }) => ({ path, line, column }))).toEqual([
      { path: 'paths./a.get.responses.2xx.headers.X-Huge', line: 10, column: 13 },
    ]);
  });
});
