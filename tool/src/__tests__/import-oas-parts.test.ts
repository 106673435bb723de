import type { JsonObject } from '@restbus/infra';
import { embedSchema, type SchemaComponents } from '../export-oas/embed-schema';
import { singular } from '@restbus/project-format';
import { guessStyle, toServiceFolder } from '../import-oas/name-services';
import { createRefs } from '../import-oas/refs';
import { sampleFromSchema } from '../import-oas/sample-from-schema';
import { DRAFT_2020_12, toJsonSchema } from '../import-oas/to-json-schema';

describe('toServiceFolder()', () => {
  it.each([
    ['/pets', ['pets']],
    ['/pets/{petId}', ['pets', 'pet']],
    ['/users/{id}', ['users', 'user']],
    ['/books/{isbn}', ['books', 'book']],
    ['/categories/{id}/children', ['categories', 'category', 'children']],
    ['/store/{orderId}', ['store', 'order']],
    ['/data/{id}', ['data', 'item']],
    ['/{lang}/docs', ['lang', 'docs']],
    ['/files/{name}.json', ['files', 'name.json']],
    ['/a b/../x', ['a-b', 'x', 'x']],
    ['/', ['root']],
  ])('%s is the folder %j', (path, folder) => {
    expect(toServiceFolder(path)).toEqual(folder);
  });

  it('makes singulars by the common rules', () => {
    expect(['categories', 'boxes', 'statuses', 'houses', 'people', 'status', 'news'].map(singular)).toEqual([
      'category',
      'box',
      'status',
      'house',
      'person',
      'status',
      'news',
    ]);
  });
});

describe('guessStyle()', () => {
  it.each([
    ['/pets/{petId}', ['GET', 'DELETE'], false, 'RESOURCE'],
    ['/pets', ['GET', 'POST'], false, 'COLLECTION'],
    ['/pets', ['GET'], false, 'COLLECTION'],
    ['/inventory', ['GET'], true, 'COLLECTION'],
    ['/inventory', ['GET'], false, 'OPERATION'],
    ['/login', ['POST'], false, 'OPERATION'],
    ['/orders', ['DELETE'], false, 'OPERATION'],
  ])('%s with %j (answers a list: %s): %s', (path, methods, listsItems, style) => {
    expect(guessStyle({ path, methods, listsItems })).toBe(style);
  });
});

describe('toJsonSchema()', () => {
  const document = {
    components: {
      schemas: {
        Name: { type: 'string', nullable: true, description: 'beside' },
        Age: { type: 'integer', minimum: 0, exclusiveMinimum: true },
        Node: { type: 'object', properties: { next: { $ref: '#/components/schemas/Node' } } },
        Leaf: { type: 'string', enum: ['a', 'b'], nullable: true },
      },
    },
  };
  const refs = createRefs(document, 'api.yaml');

  it('inlines $refs and writes OpenAPI 3.0 keywords in JSON Schema 2020-12 terms', () => {
    const schema = {
      type: 'object',
      properties: {
        name: { $ref: '#/components/schemas/Name', description: 'ignored in 3.0' },
        age: { $ref: '#/components/schemas/Age' },
        leaf: { $ref: '#/components/schemas/Leaf' },
      },
      // Data, not schemas: copied as it is.
      example: { name: { $ref: 'not a reference' } },
    };
    expect(toJsonSchema(schema, refs, '3.0')).toEqual({
      $schema: DRAFT_2020_12,
      type: 'object',
      properties: {
        name: { type: ['string', 'null'], description: 'beside' },
        age: { type: 'integer', exclusiveMinimum: 0 },
        leaf: { type: ['string', 'null'], enum: ['a', 'b', null] },
      },
      example: { name: { $ref: 'not a reference' } },
    });
  });

  it('keeps what stands beside a $ref in 3.1, and leaves 3.1 keywords alone', () => {
    const schema = { $ref: '#/components/schemas/Name', description: 'mine' };
    expect(toJsonSchema(schema, refs, '3.1')).toEqual({
      $schema: DRAFT_2020_12,
      type: 'string',
      nullable: true,
      description: 'mine',
    });
  });

  it('puts a schema on a cycle in $defs', () => {
    expect(toJsonSchema({ $ref: '#/components/schemas/Node' }, refs, '3.0')).toEqual({
      $schema: DRAFT_2020_12,
      $ref: '#/$defs/Node',
      $defs: { Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } } } },
    });
  });

  it('keeps every $ref in $defs when inlining would grow too large (a schema referenced over and over)', () => {
    // Each level refers to the next twice: inlined, 2^20 copies of the last one.
    const schemas: Record<string, JsonObject> = { L20: { type: 'string' } };
    for (let level = 19; level >= 0; level--) {
      schemas[`L${level}`] = {
        type: 'object',
        properties: {
          a: { $ref: `#/components/schemas/L${level + 1}` },
          b: { $ref: `#/components/schemas/L${level + 1}` },
        },
      };
    }
    const deep = createRefs({ components: { schemas } }, 'deep.yaml');
    const schema = toJsonSchema({ $ref: '#/components/schemas/L0' }, deep, '3.0') as JsonObject;
    expect(schema.$ref).toBe('#/$defs/L0');
    expect(Object.keys(schema.$defs as JsonObject)).toHaveLength(21);
    expect(JSON.stringify(schema).length).toBeLessThan(10_000);
  });

  it('names a $ref that leads nowhere', () => {
    expect(() => toJsonSchema({ $ref: '#/components/schemas/Nope' }, refs, '3.0')).toThrow(
      'api.yaml: the $ref "#/components/schemas/Nope" names nothing',
    );
  });
});

describe('sampleFromSchema()', () => {
  it('takes the schema’s own examples first, then builds a value by type and format', () => {
    expect(
      sampleFromSchema({
        type: 'object',
        properties: {
          id: { type: 'integer', minimum: 5 },
          name: { type: 'string', examples: ['Rex'] },
          when: { type: 'string', format: 'date-time' },
          kind: { enum: ['dog', 'cat'] },
          tags: { type: 'array', items: { type: 'string', minLength: 8 } },
          maybe: { type: ['null', 'boolean'] },
          either: { oneOf: [{ type: 'number', exclusiveMinimum: 1 }, { type: 'string' }] },
          both: { allOf: [{ properties: { a: { const: 1 } } }, { properties: { b: { default: 2 } } }] },
        },
      }),
    ).toEqual({
      id: 5,
      name: 'Rex',
      when: '2024-01-01T00:00:00Z',
      kind: 'dog',
      tags: ['stringxx'],
      maybe: true,
      either: 2,
      both: { a: 1, b: 2 },
    });
  });

  it('ends a schema on a cycle where it would repeat', () => {
    const schema = {
      $ref: '#/$defs/Node',
      $defs: {
        Node: {
          type: 'object',
          properties: { name: { type: 'string' }, children: { type: 'array', items: { $ref: '#/$defs/Node' } } },
        },
      },
    };
    expect(sampleFromSchema(schema)).toEqual({ name: 'string', children: [] });
  });
});

describe('embedSchema() (export-oas)', () => {
  it('moves a schema file’s $defs to components.schemas and points its $refs there', () => {
    const components: SchemaComponents = { Node: { type: 'string' } };
    const schema = {
      type: 'array',
      items: { $ref: '#/$defs/Node' },
      $defs: {
        Node: { type: 'object', properties: { next: { $ref: '#/$defs/Node' } }, example: { $ref: '#/$defs/Node' } },
      },
    };
    expect(embedSchema(schema, components, 'tree-schema.json')).toEqual({
      type: 'array',
      items: { $ref: '#/components/schemas/Node_2' },
    });
    expect(components.Node_2).toEqual({
      type: 'object',
      properties: { next: { $ref: '#/components/schemas/Node_2' } },
      example: { $ref: '#/$defs/Node' },
    });
  });

  it('shares one component between files that define it alike', () => {
    const components: SchemaComponents = {};
    const file = (): JsonObject => ({
      items: { $ref: '#/$defs/Node' },
      $defs: { Node: { properties: { next: { $ref: '#/$defs/Node' } } } },
    });
    expect(embedSchema(file(), components, 'a.json')).toEqual({ items: { $ref: '#/components/schemas/Node' } });
    expect(embedSchema(file(), components, 'b.json')).toEqual({ items: { $ref: '#/components/schemas/Node' } });
    expect(Object.keys(components)).toEqual(['Node']);
  });

  it('leaves a schema without local references as it is, and names a file that refers to itself', () => {
    const components: SchemaComponents = {};
    const plain = { type: 'object', properties: { a: { type: 'string' } } };
    expect(embedSchema(plain, components, 'a.json')).toBe(plain);
    expect(components).toEqual({});
    expect(
      embedSchema({ type: 'object', properties: { self: { $ref: '#' } } }, components, 'self-schema.json'),
    ).toEqual({
      $ref: '#/components/schemas/self-schema',
    });
    expect(components['self-schema']).toEqual({
      type: 'object',
      properties: { self: { $ref: '#/components/schemas/self-schema' } },
    });
  });
});
