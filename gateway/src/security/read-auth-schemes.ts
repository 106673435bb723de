import Ajv from 'ajv';
import type { FromSchema } from 'json-schema-to-ts';
import { jwtExtensionSchema } from './jwt-extension';

/** `--authSchemes`: how each scheme, by its name in the documents, is verified: what `x-restbus-jwt` would say. */
export const authSchemesSchema = {
  type: 'object',
  maxProperties: 256,
  additionalProperties: jwtExtensionSchema,
} as const;

export type AuthSchemeSettings = FromSchema<typeof authSchemesSchema>;

let check: ((value: unknown) => value is AuthSchemeSettings) | undefined;

/** The settings `--authSchemes` holds (JSON), or what is wrong with them, in words. */
export function readAuthSchemes(
  text: string,
): { ok: true; schemes: AuthSchemeSettings } | { ok: false; problem: string } {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      problem:
        'is not JSON: write an object keyed by scheme name, e.g. {"bearerAuth": {"issuer": "…", "jwksUri": "…"}}',
    };
  }
  check ??= new Ajv({ allErrors: false, strict: false }).compile<AuthSchemeSettings>(authSchemesSchema);
  if (check(value)) return { ok: true, schemes: value };
  const [error] = (check as unknown as { errors?: Array<{ instancePath: string; message?: string }> }).errors ?? [];
  const where = error?.instancePath ? error.instancePath.slice(1).replaceAll('/', '.') : 'the value';
  return { ok: false, problem: `${where} ${error?.message ?? 'is invalid'}` };
}
