import addFormats from 'ajv-formats';
import { compileInputChecks } from '../contract/compile-input-checks';
import type { Contract } from '../contract/contract';
import type { RequestMessage } from '../wire/types';
import { adaptOpenApiSchema } from './adapt-openapi-schema';
import { createSchemaCompilers } from './create-schema-compilers';
import { DIALECT_CASES, type DialectCase } from '../testing/openapi-dialect-cases';

const contractOf = (dialect: Contract['dialect'], schema: object): Contract => ({
  title: 't',
  version: '1',
  dialect,
  operations: [
    {
      name: 'putThing',
      method: 'put',
      path: '/things',
      parameters: { path: [], query: [], header: [] },
      requestBody: {
        required: true,
        content: { 'application/json': { schema: { type: 'object', properties: { v: schema } } } },
      },
    },
  ],
});

const bodyMessage = (value: unknown): RequestMessage =>
  ({
    request: {
      cookies: {},
      headers: { 'content-type': 'application/json' },
      parameters: { uri: {}, query: {} },
      body: JSON.stringify({ v: value }),
    },
  }) as unknown as RequestMessage;

const row = (c: DialectCase): [string, DialectCase] => [`${c.says} (${c.dialect})`, c];

describe('each OpenAPI dialect read as it means its keywords', () => {
  it.each(DIALECT_CASES.map(row))('%s: a schema compiler', (_says, { dialect, schema, accepts, refuses }) => {
    const validate = createSchemaCompilers(dialect, { addFormats: (ajv) => addFormats(ajv) }).compile(schema);
    for (const value of accepts) expect([value, validate(value)]).toEqual([value, true]);
    for (const value of refuses) expect([value, validate(value)]).toEqual([value, false]);
  });

  it.each(DIALECT_CASES.map(row))(
    "%s: a generated service's input check",
    (_says, { dialect, schema, accepts, refuses }) => {
      const check = compileInputChecks(contractOf(dialect, schema)).get('putThing')!;
      for (const value of accepts) expect([value, check(bodyMessage(value)).ok]).toEqual([value, true]);
      for (const value of refuses) expect([value, check(bodyMessage(value)).ok]).toEqual([value, false]);
    },
  );

  it("reads Swagger 2's type: file as any value, and refuses to compile it in 3.0, which has no such type", () => {
    expect(createSchemaCompilers('2.0').compile({ type: 'file' })('any bytes')).toBe(true);
    expect(() => createSchemaCompilers('3.0').compile({ type: 'file' })).toThrow(/type/);
  });

  it('refuses to compile a boolean exclusive bound in 3.1, whose bounds are numbers', () => {
    expect(() => createSchemaCompilers('3.1').compile({ maximum: 5, exclusiveMaximum: true })).toThrow(
      /exclusiveMaximum must be number/,
    );
  });

  it("reads a draft-04 schema file's boolean bound as draft 4 means it", () => {
    const validate = createSchemaCompilers('draft-04').compile({ type: 'integer', minimum: 1, exclusiveMinimum: true });
    expect([validate(1), validate(2)]).toEqual([false, true]);
  });

  it('reads `$defs` and `$ref` of a 3.1 schema as 2020-12 does', () => {
    const validate = createSchemaCompilers('3.1').compile({ $defs: { small: { maximum: 3 } }, $ref: '#/$defs/small' });
    expect([validate(3), validate(4)]).toEqual([true, false]);
  });

  it('adapts the schemas a contract registers for its cycles, where their $refs lead', () => {
    const node = { type: 'object', properties: { size: { type: 'integer', maximum: 5, exclusiveMaximum: true } } };
    const contract: Contract = {
      ...contractOf('3.0', { $ref: 'restbus-api.json#/components/schemas/Node' }),
      schemaRoot: { components: { schemas: { Node: node } } },
    };
    const check = compileInputChecks(contract).get('putThing')!;
    expect(check(bodyMessage({ size: 4 })).ok).toBe(true);
    expect(check(bodyMessage({ size: 5 })).ok).toBe(false);
  });

  it('keeps a schema that needs no change as the same object, and changes none it is given', () => {
    const plain = { type: 'object', properties: { n: { type: 'integer' } } };
    expect(adaptOpenApiSchema(plain, '3.0')).toBe(plain);
    const bounded = { type: 'object', properties: { 'x-n': { type: 'integer', maximum: 5, exclusiveMaximum: true } } };
    const written = JSON.stringify(bounded);
    expect(adaptOpenApiSchema(bounded, '3.0')).toEqual({
      type: 'object',
      properties: { 'x-n': { type: 'integer', exclusiveMaximum: 5 } },
    });
    expect(JSON.stringify(bounded)).toBe(written);
  });

  it("stops a generated service at start when an operation's schema cannot be compiled, naming the operation", () => {
    expect(() => compileInputChecks(contractOf('3.1', { maximum: 5, exclusiveMaximum: true }))).toThrow(
      expect.objectContaining({
        code: 'OPENAPI_INVALID',
        message: expect.stringMatching(/^operation putThing: its input cannot be checked: .*exclusiveMaximum/),
      }),
    );
  });
});
