import { createSchemaSampler } from './create-schema-sampler';

/** A document of each dialect holding `schemas` where that dialect keeps them, and a `$ref` to one of them. */
const DIALECTS = [
  {
    name: 'OpenAPI 2.0',
    document: (schemas: object) => ({ swagger: '2.0', definitions: schemas }),
    at: '#/definitions/',
  },
  {
    name: 'OpenAPI 3.0',
    document: (schemas: object) => ({ openapi: '3.0.3', components: { schemas } }),
    at: '#/components/schemas/',
  },
  {
    name: 'OpenAPI 3.1',
    document: (schemas: object) => ({ openapi: '3.1.0', components: { schemas } }),
    at: '#/components/schemas/',
  },
] as const;

function sampleIn(dialect: (typeof DIALECTS)[number], schema: object): unknown {
  const document = dialect.document({ Target: schema });
  const result = createSchemaSampler().sample({ $ref: `${dialect.at}Target` }, document);
  return 'sample' in result ? result.sample?.value : result;
}

describe.each(DIALECTS)('sampling a schema as Prism does, in $name', (dialect) => {
  it.each([
    ['idn-email', 'пользователь@пример.ру'],
    ['idn-hostname', 'пример.ру'],
    ['iri', 'http://пример.ру'],
    ['iri-reference', '../словарь'],
    ['email', 'user@example.com'],
    ['uri-template', 'http://example.com/{endpoint}'],
    ['json-pointer', '/json/pointer'],
    ['relative-json-pointer', '1/relative/json/pointer'],
    ['regex', '/regex/'],
    ['time', '14:15:22Z'],
  ])('gives a string of format %s the value Prism gives: %s', (format, value) => {
    expect(sampleIn(dialect, { type: 'string', format })).toBe(value);
  });

  it.each([
    [{ type: 'number', format: 'float' }, 0],
    [{ type: 'number', format: 'double' }, 0],
    [{ type: 'number', maximum: 10 }, 10],
    [{ type: 'integer', minimum: 3 }, 3],
    [{ type: 'integer', minimum: 3, maximum: 10 }, 3],
  ])('gives the number schema %j the value Prism gives: %s', (schema, value) => {
    expect(sampleIn(dialect, schema)).toBe(value);
  });

  it('gives a recursive object the depth Prism gives: the first repeat is an empty object', () => {
    const ref = { $ref: `${dialect.at}Node` };
    const node = { type: 'object', properties: { name: { type: 'string' }, child: ref } };
    const document = dialect.document({ Node: node });
    const sampler = createSchemaSampler();
    const expected = { sample: { json: '{"name":"string","child":{}}', value: { name: 'string', child: {} } } };
    expect(sampler.sample({ $ref: `${dialect.at}Node` }, document)).toEqual(expected);
    expect(sampler.sample(node, document)).toEqual(expected);
    // A loader may hand over the very `$ref` object the schema holds inside.
    expect(sampler.sample(ref, document)).toEqual(expected);
  });

  it('gives a recursive array the depth Prism gives: an array holding an empty array', () => {
    expect(sampleIn(dialect, { type: 'array', items: { $ref: `${dialect.at}Target` } })).toEqual([[]]);
  });
});

describe.each(DIALECTS.filter((dialect) => dialect.name !== 'OpenAPI 3.1'))(
  'exclusive bounds written as booleans, as Prism reads them, in $name',
  (dialect) => {
    it.each([
      [{ type: 'integer', minimum: 5, exclusiveMinimum: true }, 6],
      [{ type: 'integer', maximum: 10, exclusiveMaximum: true }, 9],
      [{ type: 'integer', maximum: 10, exclusiveMaximum: false }, 10],
      [{ type: 'integer', minimum: 1, maximum: 10, exclusiveMinimum: true, exclusiveMaximum: true }, 2],
      [{ type: 'number', minimum: 1.5, exclusiveMinimum: true }, 2.5],
      [{ type: 'integer', maximum: 10, exclusiveMinimum: true }, 10],
    ])('gives %j the value Prism gives: %s', (schema, value) => {
      expect(sampleIn(dialect, schema)).toBe(value);
    });
  },
);

describe('exclusive bounds written as numbers (OpenAPI 3.1), as Prism reads them', () => {
  const dialect = DIALECTS[2];
  it.each([
    [{ type: 'integer', exclusiveMinimum: 5 }, 6],
    [{ type: 'number', exclusiveMinimum: 1.5 }, 2.5],
    [{ type: 'integer', exclusiveMaximum: 10 }, 9],
    [{ type: 'number', exclusiveMaximum: 0.5 }, -0.5],
    [{ type: 'integer', exclusiveMinimum: 5, exclusiveMaximum: 6 }, 5.5],
    [{ type: 'integer', minimum: 2, exclusiveMinimum: 5 }, 2],
  ])('gives %j the value Prism gives: %s', (schema, value) => {
    expect(sampleIn(dialect, schema)).toBe(value);
  });

  it('samples `contains` as the items, once, whatever `minContains` says, as Prism does', () => {
    expect(
      sampleIn(dialect, { type: 'array', contains: { type: 'integer', exclusiveMinimum: 3 }, minContains: 2 }),
    ).toEqual([4]);
  });

  it('passes over `prefixItems` as Prism does: the array is sampled from `items`', () => {
    expect(sampleIn(dialect, { type: 'array', prefixItems: [{ type: 'string' }], items: { type: 'integer' } })).toEqual(
      [0],
    );
    expect(sampleIn(dialect, { type: 'array', prefixItems: [{ type: 'string' }] })).toEqual([]);
  });
});

describe('the limits, on the paths sampled as Prism does', () => {
  it('gives a string of a format the value of its format whatever its minLength, and still weighs the minLength of a plain string', () => {
    const result = createSchemaSampler({ maxBytes: 1000, maxReads: 1000 }).sample(
      { type: 'string', format: 'idn-email', minLength: 5000 },
      undefined,
    );
    expect(result).toEqual({ sample: { json: '"пользователь@пример.ру"', value: 'пользователь@пример.ру' } });
    expect(
      createSchemaSampler({ maxBytes: 1000, maxReads: 1000 }).sample({ type: 'string', minLength: 5000 }, undefined),
    ).toEqual({
      tooLarge: 'larger than 1000 bytes',
    });
  });

  it('still gives up a recursive array too wide to build', () => {
    const document = {
      openapi: '3.1.0',
      components: {
        schemas: {
          Wide: {
            type: 'array',
            minItems: 1000,
            items: { type: 'array', minItems: 1000, items: { type: 'integer', exclusiveMinimum: 1 } },
          },
        },
      },
    };
    expect(createSchemaSampler().sample({ $ref: '#/components/schemas/Wide' }, document)).toHaveProperty('tooLarge');
  });
});
