import Ajv from 'ajv';

/**
 * Each exported `…Schema` of a module that is not a valid JSON schema, as `<name>: <ajv's errors>`. For the schemas
 * a program compiles with `validateSchema: false` (checking them at every start compiled the meta-schema first):
 * their tests check them here once instead.
 */
export function findInvalidSchemas(module: Record<string, unknown>): string[] {
  const meta = new Ajv({ strict: true });
  return Object.entries(module)
    .filter(([name]) => name.endsWith('Schema'))
    .filter(([, schema]) => !meta.validateSchema(schema as object))
    .map(([name]) => `${name}: ${meta.errorsText()}`);
}
