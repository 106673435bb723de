import type { FromSchema } from 'json-schema-to-ts';

/** The extension a scheme's tokens are verified by, named as ESP's `x-google-issuer`/`-jwks_uri`/`-audiences`. */
export const JWT_EXTENSION = 'x-restbus-jwt';

/**
 * `x-restbus-jwt` on a security scheme: how the gateway verifies its tokens. `issuer` and `jwksUri` for an `oauth2` or
 * `http` bearer scheme (an `openIdConnect` scheme's come from its discovery document); `audience` when tokens must be
 * meant for this API; `scopesClaim` when the scopes are not in `scope` or `scp`; `claims` to pass on to the service.
 */
export const jwtExtensionSchema = {
  type: 'object',
  additionalProperties: false,
  properties: {
    issuer: { type: 'string', minLength: 1, maxLength: 2048 },
    jwksUri: { type: 'string', minLength: 1, maxLength: 2048 },
    audience: {
      anyOf: [
        { type: 'string', minLength: 1, maxLength: 2048 },
        { type: 'array', minItems: 1, maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 2048 } },
      ],
    },
    scopesClaim: { type: 'string', minLength: 1, maxLength: 256 },
    claims: { type: 'array', maxItems: 64, items: { type: 'string', minLength: 1, maxLength: 256 } },
  },
} as const;

export type JwtExtension = FromSchema<typeof jwtExtensionSchema>;
