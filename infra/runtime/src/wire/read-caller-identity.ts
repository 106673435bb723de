import Ajv, { type ValidateFunction } from 'ajv';
import type { CallerIdentity, IncomingRequest } from './types';

/** The identity the gateway writes at `request.user` (--auth verify), as a service may trust it. */
export const callerIdentitySchema = {
  $id: 'restbus:caller-identity',
  type: 'object',
  required: ['subject', 'schemes', 'scopes', 'claims'],
  properties: {
    subject: { type: 'string' },
    schemes: { type: 'array', items: { type: 'string' } },
    scopes: { type: 'array', items: { type: 'string' } },
    issuer: { type: 'string' },
    claims: { type: 'object' },
  },
} as const;

// Compiled at the first call that carries a user: most services never see one.
let check: ValidateFunction<CallerIdentity> | undefined;

/**
 * Who called, as the gateway verified it: `request.user` when it has the shape the gateway writes, else undefined
 * (no user, as for a public operation, or easer's passport user, which is no verified identity).
 */
export function readCallerIdentity(request: Pick<IncomingRequest, 'user'>): CallerIdentity | undefined {
  if (request.user === undefined) return undefined;
  check ??= new Ajv({ strict: false, validateSchema: false }).compile<CallerIdentity>(callerIdentitySchema);
  return check(request.user) ? request.user : undefined;
}
