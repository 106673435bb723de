import Ajv, { type Options, type ValidateFunction } from 'ajv';
import Ajv2020 from 'ajv/dist/2020';
import { adaptOpenApiSchema, type SchemaDialect } from './adapt-openapi-schema';
import { addLinearUniqueItems } from './add-linear-unique-items';
import type { ValidatorPair } from './find-schema-errors';
import { linearPatternEngine } from './linear-pattern-engine';

export type { SchemaDialect } from './adapt-openapi-schema';

export interface SchemaCompilerOptions {
  /**
   * For values that arrive as text (parameters, headers): "7" is checked as the 7 a schema asks for, on the value
   * checked (ajv's `coerceTypes`); `'array'` also reads one value as an array of one.
   */
  coerceTypes?: boolean | 'array';
  /**
   * Checks `format`: this adds JSON Schema's formats (ajv-formats' plugin, handed over by the program that depends
   * on it), OpenAPI's own (int32, int64, float, double, byte, binary, password) are added here. An unknown format
   * passes unsaid. Without it no format is checked.
   */
  addFormats?: (ajv: never) => unknown;
  /** ajv's `verbose`: each error carries the value and the schema it failed (to say what was expected). */
  verbose?: boolean;
  /** Schemas registered by id, for `$ref`s to resolve against (a contract's schemaRoot). */
  schemas?: Readonly<Record<string, object>>;
  /**
   * The document the `$ref`s a cycle left in a schema point into (`#/components/schemas/Node`): a schema that has
   * such a `$ref` is compiled beside the document's members, where they resolve (an API model's schemaRoot).
   */
  root?: object;
}

/** The ajv instances of one dialect and options; a schema compiled by both is a ValidatorPair (findSchemaErrors). */
export interface SchemaCompilers {
  /** Lists every error (`allErrors`). */
  all: Ajv;
  /** Stops at the first error: a large invalid value costs one partial pass. */
  first: Ajv;
  /**
   * A schema compiled by `all`, read as its dialect means it (adaptOpenApiSchema: OpenAPI 2.0/3.0's boolean bounds,
   * `nullable`, `type: file`); throws what ajv throws on a schema it cannot compile.
   */
  compile(schema: object | boolean): ValidateFunction;
  /** A schema compiled by both, as `compile` reads it. */
  compilePair(schema: object | boolean): ValidatorPair<ValidateFunction>;
}

const INT32 = 2 ** 31;

/** The formats OpenAPI names beyond JSON Schema's: numbers by width, base64 bytes, and two any-strings. */
function addOpenApiFormats(ajv: Ajv): void {
  ajv.addFormat('int32', { type: 'number', validate: (n) => Number.isInteger(n) && n >= -INT32 && n < INT32 });
  ajv.addFormat('int64', { type: 'number', validate: (n) => Number.isInteger(n) });
  ajv.addFormat('float', { type: 'number', validate: () => true });
  ajv.addFormat('double', { type: 'number', validate: () => true });
  ajv.addFormat('byte', /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/);
  ajv.addFormat('binary', true);
  ajv.addFormat('password', true);
}

/**
 * The one place ajv is set up for schemas a client or a service controls the values of: every instance compiles
 * `pattern` for V8's linear-time fallback (linearPatternEngine) and checks `uniqueItems` in linear time
 * (addLinearUniqueItems), reads OpenAPI-flavoured schemas without failing on unknown keywords (`strict: false`), and
 * logs nothing. What differs between its users is said in `options`: coercion of text, formats, verbosity.
 */
export function createSchemaCompilers(dialect: SchemaDialect, options: SchemaCompilerOptions = {}): SchemaCompilers {
  const { coerceTypes, addFormats, verbose, schemas, root } = options;
  const memo = new WeakMap<object, unknown>();
  const adapt = <S extends object | boolean>(schema: S): S => adaptOpenApiSchema(schema, dialect, memo);
  const base: Options = {
    strict: false,
    logger: false,
    code: { regExp: linearPatternEngine },
    validateFormats: addFormats !== undefined,
    ...(coerceTypes !== undefined && { coerceTypes }),
    ...(verbose !== undefined && { verbose }),
  };
  const make = (allErrors: boolean): Ajv => {
    const settings = { ...base, allErrors };
    const ajv = addLinearUniqueItems(
      dialect === '3.1' || dialect === '2020-12' ? new Ajv2020(settings) : new Ajv(settings),
    );
    if (addFormats) {
      addFormats(ajv as never);
      if (dialect === '2.0' || dialect === '3.0' || dialect === '3.1') addOpenApiFormats(ajv);
    }
    for (const [id, schema] of Object.entries(schemas ?? {})) ajv.addSchema({ ...adapt(schema), $id: id });
    return ajv;
  };
  // Made when first used: most users of the parameters' instance never stop at a first error.
  let all: Ajv | undefined;
  let first: Ajv | undefined;
  let adaptedRoot: object | undefined;
  const prepare = (schema: object | boolean): object | boolean => {
    const adapted = adapt(schema);
    if (!root || !JSON.stringify(adapted).includes('"$ref"')) return adapted;
    adaptedRoot ??= adapt({ ...root });
    return { ...adaptedRoot, allOf: [adapted] };
  };
  const compilers: SchemaCompilers = {
    get all() {
      return (all ??= make(true));
    },
    get first() {
      return (first ??= make(false));
    },
    compile: (schema) => compilers.all.compile(prepare(schema)),
    compilePair: (schema) => {
      const prepared = prepare(schema);
      return { first: compilers.first.compile(prepared), all: compilers.all.compile(prepared) };
    },
  };
  return compilers;
}
