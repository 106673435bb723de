import Ajv from 'ajv';
import { createSettingsSchema, type ProgramSpec } from '../config/load-config';

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

/**
 * What is wrong with a program's settings schema (each setting's `schema`, under its flag), as ajv's errors; empty
 * when it is a valid JSON schema. loadConfig compiles it with `validateSchema: false`: the program's tests check it.
 */
export function findInvalidSettings(spec: ProgramSpec): string[] {
  return findInvalidSchemas({ [`${spec.name}SettingsSchema`]: createSettingsSchema(spec) });
}
