import type { PolicyCall } from './call-policy';
import type { JwtVerifier } from './jwt-verifier';
import type { VerifiedToken } from './verified-tokens';
import { quoteHeaderValue, type SchemeCheck, type SchemeOutcome } from './scheme-check';

/** RFC 6750 §2.1's `Bearer` credentials: the scheme (any case), one or more spaces, a token68. */
const BEARER = /^bearer +([A-Za-z0-9\-._~+/]+=*) *$/i;

/** The bearer token of a call (`Authorization: Bearer …`), `''` when it sends other credentials or malformed ones. */
export function readBearerToken(call: PolicyCall): string | undefined {
  const header = call.req.headers.authorization;
  if (header === undefined) return undefined;
  const token = BEARER.exec(header)?.[1];
  if (token !== undefined) return token;
  return /^bearer(?: |$)/i.test(header) ? '' : undefined;
}

/**
 * An `oauth2`, `openIdConnect` or `http` bearer scheme whose tokens are JWTs of a known issuer. The token is read from
 * the `Authorization` header only: one in the query (RFC 6750 §2.3) ends up in every access log on the way.
 */
export class BearerCheck implements SchemeCheck {
  /** One outcome object per verified token, so that what is derived from it can be kept with it (SecurityPolicy). */
  private readonly outcomes = new WeakMap<VerifiedToken, SchemeOutcome>();

  constructor(
    readonly name: string,
    private readonly verifier: JwtVerifier,
  ) {}

  check(call: PolicyCall): SchemeOutcome | Promise<SchemeOutcome> {
    // The common form, `Bearer <token>`, of a token verified before: found in place, before any parsing.
    const header = call.req.headers.authorization;
    const known = header?.startsWith('Bearer ') ? this.verifier.findVerified(header, 7) : undefined;
    return known ? this.outcomeOf(known) : this.checkAnew(call);
  }

  private async checkAnew(call: PolicyCall): Promise<SchemeOutcome> {
    const token = readBearerToken(call);
    if (token === undefined) return { kind: 'absent' };
    if (token === '') return { kind: 'invalid', code: 'TOKEN_INVALID', reason: 'malformed Bearer credentials' };
    const outcome = await this.verifier.verify(token);
    return outcome.kind === 'verified' ? this.outcomeOf(outcome.token) : outcome;
  }

  /** One outcome object per verified token, made once. */
  private outcomeOf(token: VerifiedToken): SchemeOutcome {
    let verified = this.outcomes.get(token);
    if (!verified) {
      const { subject, scopes, issuer, claims } = token;
      verified = { kind: 'verified', subject, scopes, issuer, claims };
      this.outcomes.set(token, verified);
    }
    return verified;
  }

  challenge(refusal?: { error: 'invalid_token' | 'insufficient_scope'; scopes?: readonly string[] }): string {
    let challenge = 'Bearer realm="restbus"';
    if (refusal) challenge += `, error="${refusal.error}"`;
    if (refusal?.scopes?.length) challenge += `, scope=${quoteHeaderValue(refusal.scopes.join(' '))}`;
    return challenge;
  }
}
