import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { FromSchema, JSONSchema } from 'json-schema-to-ts';
import type { YamlFile } from './read-yaml-file';

export interface SchemaProblem {
  /** JSON pointer of the offending value ('' for the whole document). */
  pointer: string;
  /** The schema keyword that failed (`required`, `enum`, `additionalProperties`...). */
  keyword: string;
  /** `<file>:<line>: <json path>: <message>`, as every restbus program prints it. */
  text: string;
}

// validateSchema off: every schema checked here is restbus's own (the project format's, checked against the
// meta-schema in schemas.test.ts; rest-tool's bulk file), and checking them at every start compiled the meta-schema
// first (issue 45).
const ajv = new Ajv({ allErrors: true, strict: false, validateSchema: false });

function describe({ keyword, params, instancePath, message }: ErrorObject): { pointer: string; message: string } {
  if (
    keyword === 'additionalProperties' &&
    typeof params.additionalProperty === 'string' &&
    params.additionalProperty
  ) {
    return { pointer: `${instancePath}/${params.additionalProperty}`, message: 'is not allowed here' };
  }
  if (keyword === 'enum' && Array.isArray(params.allowedValues)) {
    const allowed: unknown[] = params.allowedValues;
    return { pointer: instancePath, message: `must be one of ${allowed.map((v) => JSON.stringify(v)).join(', ')}` };
  }
  return { pointer: instancePath, message: message ?? 'is invalid' };
}

/** A file's value with the type its schema gives it, or every problem that keeps it from having that shape. */
export type SchemaReading<T> = { ok: true; value: T } | { ok: false; problems: SchemaProblem[] };

/** Reads files with `schema`, T being the type derived from that same schema (or unknown). */
function readWith<T>(schema: object | boolean): (file: YamlFile) => SchemaReading<T> {
  let compiled: ValidateFunction | undefined;
  // ajv has checked the value against the very schema T is derived from.
  const hasShape = (value: unknown): value is T => (compiled ??= ajv.compile(schema))(value);
  return (file) => {
    const { value } = file;
    if (hasShape(value)) return { ok: true, value };
    const seen = new Set<string>();
    const problems: SchemaProblem[] = [];
    for (const error of compiled?.errors ?? []) {
      // anyOf/oneOf repeat their branches' errors; the branches say it better.
      if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
      const { pointer, message } = describe(error);
      const text = `${file.name}:${file.lineOf(pointer)}: ${pointer || '/'}: ${message}`;
      if (!seen.has(text)) problems.push({ pointer, keyword: error.keyword, text });
      seen.add(text);
    }
    return { ok: false, problems };
  };
}

/**
 * Like createSchemaCheck, for a schema written `as const`: a file that passes comes back typed by the schema
 * (json-schema-to-ts's FromSchema, as ./types derives the project's types), so its readers need no casts.
 */
export function createSchemaReader<const S extends JSONSchema>(
  schema: S,
): (file: YamlFile) => SchemaReading<FromSchema<S>> {
  return readWith<FromSchema<S>>(schema);
}

/**
 * Compiles a JSON schema into a check of a YAML (or JSON) file that names, for every problem, the file, the line,
 * the JSON path and what is wrong. Shared by the mock server and rest-tool, so both word problems the same way.
 * The schema is compiled at the first check, not here: the checks are made when a module loads, and a command that
 * reads no project (`rest-tool --version`, `create`) paid a seventh of a second for them (issue 45).
 */
export function createSchemaCheck(schema: object): (file: YamlFile) => SchemaProblem[] {
  const read = readWith<unknown>(schema);
  return (file) => {
    const reading = read(file);
    return reading.ok ? [] : reading.problems;
  };
}
