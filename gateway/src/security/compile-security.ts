import type { SourceLocator } from '@restbus/openapi';
import type { AuthMode } from './auth-mode';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { CallPolicy } from './call-policy';
import type { VerifySettings } from './compile-verified-security';
import { PresencePolicy } from './presence-policy';

/** The security of one load: each secured endpoint's policy, and what runs beside them (the issuers' key sets). */
export interface CompiledSecurity {
  /** Undefined when nothing is checked. */
  policies?: ReadonlyMap<ApiEndpoint, CallPolicy>;
  start(): void;
  stop(): void;
}

const NOTHING_CHECKED: CompiledSecurity = { start: () => undefined, stop: () => undefined };

// Loaded by --auth verify only: it brings jose and the key sets.
const loadVerifiedSecurity = (): typeof import('./compile-verified-security') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the mode that uses it
  require('./compile-verified-security') as typeof import('./compile-verified-security');

/** Whether an operation asks for credentials at all (`security: []`, or only `{}`, asks for none). */
export const isSecured = (endpoint: ApiEndpoint): boolean =>
  endpoint.model.security.length > 0 && endpoint.model.security.every((requirement) => requirement.length > 0);

/**
 * The policies `--auth` gives the endpoints of a load: none (`off`, or left out: the mock then checks presence
 * itself), a presence check (`presence`), or verification (`verify`, which refuses the load when a scheme cannot be
 * verified: see compileVerifiedSecurity).
 */
export async function compileSecurity(
  endpoints: readonly ApiEndpoint[],
  mode: AuthMode | undefined,
  settings: VerifySettings,
  locate: SourceLocator,
): Promise<CompiledSecurity> {
  if (mode === undefined || mode === 'off') return NOTHING_CHECKED;
  if (mode === 'presence') {
    const policies = new Map<ApiEndpoint, CallPolicy>();
    for (const endpoint of endpoints) if (isSecured(endpoint)) policies.set(endpoint, new PresencePolicy(endpoint));
    return { ...NOTHING_CHECKED, policies };
  }
  return loadVerifiedSecurity().compileVerifiedSecurity(endpoints, settings, locate);
}
