import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
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

function describe(error: ErrorObject): { pointer: string; message: string } {
  const params = error.params as { additionalProperty?: string; allowedValues?: unknown[] };
  if (error.keyword === 'additionalProperties' && params.additionalProperty) {
    return { pointer: `${error.instancePath}/${params.additionalProperty}`, message: 'is not allowed here' };
  }
  if (error.keyword === 'enum' && params.allowedValues) {
    return {
      pointer: error.instancePath,
      message: `must be one of ${params.allowedValues.map((v) => JSON.stringify(v)).join(', ')}`,
    };
  }
  return { pointer: error.instancePath, message: error.message ?? 'is invalid' };
}

/**
 * Compiles a JSON schema into a check of a YAML (or JSON) file that names, for every problem, the file, the line,
 * the JSON path and what is wrong. Shared by the mock server and rest-tool, so both word problems the same way.
 * The schema is compiled at the first check, not here: the checks are made when a module loads, and a command that
 * reads no project (`rest-tool --version`, `create`) paid a seventh of a second for them (issue 45).
 */
export function createSchemaCheck(schema: object): (file: YamlFile) => SchemaProblem[] {
  let compiled: ValidateFunction | undefined;
  return (file) => {
    const validate = (compiled ??= ajv.compile(schema));
    if (validate(file.value)) return [];
    const seen = new Set<string>();
    const problems: SchemaProblem[] = [];
    for (const error of validate.errors ?? []) {
      // anyOf/oneOf repeat their branches' errors; the branches say it better.
      if (error.keyword === 'anyOf' || error.keyword === 'oneOf' || error.keyword === 'if') continue;
      const { pointer, message } = describe(error);
      const text = `${file.name}:${file.lineOf(pointer)}: ${pointer || '/'}: ${message}`;
      if (!seen.has(text)) problems.push({ pointer, keyword: error.keyword, text });
      seen.add(text);
    }
    return problems;
  };
}
