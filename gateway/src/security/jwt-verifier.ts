import { RestbusError, type Logger } from '@restbus/infra';
import type { Jose } from './jose';
import type { IssuerKeys } from './issuer-keys';
import type { VerifiedToken, VerifiedTokens } from './verified-tokens';

/**
 * The signature algorithms a token may use: public-key ones only. Never `none`, and never an HMAC, whose key would be
 * a secret the gateway does not have (and, keyed with a public key, the algorithm-confusion forgery).
 */
export const ACCEPTED_ALGORITHMS = [
  'RS256',
  'RS384',
  'RS512',
  'PS256',
  'PS384',
  'PS512',
  'ES256',
  'ES384',
  'ES512',
  'EdDSA',
  'Ed25519',
];

/** Longer tokens are refused unread: a real one is a few kilobytes at most. */
export const MAX_TOKEN_LENGTH = 16 * 1024;

/** The skew allowed between the issuer's clock and the gateway's for `exp`, `nbf` and `iat` (seconds). */
export const CLOCK_TOLERANCE_S = 30;

export interface JwtCheckSettings {
  /** When set, the token's `aud` must include one of them. */
  audiences?: string[];
  /** The claim the scopes are in; `scope` (space-separated) then `scp` when left out. */
  scopesClaim?: string;
  /** The claims passed on to the service beside the subject and scopes. */
  claims: string[];
}

/** How a token fared: verified (what it grants), or why not, in words for the log only. */
export type TokenOutcome =
  | { kind: 'verified'; token: VerifiedToken }
  | { kind: 'invalid'; code: 'TOKEN_INVALID' | 'TOKEN_EXPIRED'; reason: string }
  | { kind: 'unavailable'; error: RestbusError };

function readScopes(payload: Record<string, unknown>, claim: string | undefined): Set<string> {
  const values = claim ? [payload[claim]] : [payload.scope, payload.scp];
  for (const value of values) {
    if (typeof value === 'string') return new Set(value.split(' ').filter(Boolean));
    if (Array.isArray(value)) return new Set(value.filter((item): item is string => typeof item === 'string'));
  }
  return new Set();
}

/** The subject a token names: `sub`, else the client it was issued to (client-credentials tokens). */
function readSubject(payload: Record<string, unknown>): string {
  for (const claim of ['sub', 'client_id', 'azp']) {
    const value = payload[claim];
    if (typeof value === 'string' && value !== '') return value;
  }
  return '';
}

/**
 * Checks bearer tokens of one issuer with jose: the signature with a key of the issuer's set and an algorithm that key
 * allows (ACCEPTED_ALGORITHMS), `exp` (required) and `nbf` with CLOCK_TOLERANCE_S, `iss` exactly, `aud` when
 * audiences are set. A token's own `jku`, `x5u` or embedded `jwk` is never used: keys come from the issuer's set
 * only. Tokens verified once are kept (VerifiedTokens) until they expire.
 */
export class JwtVerifier {
  constructor(
    private readonly keys: IssuerKeys,
    private readonly settings: JwtCheckSettings,
    private readonly cache: VerifiedTokens,
    private readonly jose: typeof Jose,
    private readonly logger: Logger,
    /** Told whether each token was found verified already (the metrics count them). */
    private readonly onLookup?: (result: 'hit' | 'miss') => void,
  ) {}

  /**
   * The grant of a token verified before, read in place at `start` of `text` (an `Authorization` header): the path
   * of nearly every call of a busy client, with no promise and no copy. Counted only when found: a call it does not
   * find goes on to verify(), which counts it.
   */
  findVerified(text: string, start: number): VerifiedToken | undefined {
    const found = this.cache.find(text, start);
    if (found) this.onLookup?.('hit');
    return found;
  }

  async verify(token: string): Promise<TokenOutcome> {
    const cached = this.cache.get(token);
    this.onLookup?.(cached ? 'hit' : 'miss');
    if (cached) return { kind: 'verified', token: cached };
    if (token.length > MAX_TOKEN_LENGTH) {
      return { kind: 'invalid', code: 'TOKEN_INVALID', reason: `longer than ${MAX_TOKEN_LENGTH} characters` };
    }
    const { errors, jwtVerify } = this.jose;
    try {
      // Known once the keys are: a discovered issuer is the discovery document's.
      const { issuer } = await this.keys.current();
      const { payload } = await jwtVerify(token, this.keys.getKey, {
        algorithms: ACCEPTED_ALGORITHMS,
        clockTolerance: CLOCK_TOLERANCE_S,
        requiredClaims: ['exp'],
        audience: this.settings.audiences,
        issuer,
      });
      const claims: Record<string, unknown> = {};
      for (const name of this.settings.claims) if (Object.hasOwn(payload, name)) claims[name] = payload[name];
      const verified: VerifiedToken = {
        subject: readSubject(payload),
        scopes: readScopes(payload, this.settings.scopesClaim),
        issuer: String(payload.iss),
        claims,
        expiresAt: (payload.exp ?? 0) * 1000 + CLOCK_TOLERANCE_S * 1000,
      };
      this.cache.add(token, verified);
      return { kind: 'verified', token: verified };
    } catch (err) {
      if (err instanceof RestbusError && err.code === 'AUTH_UNAVAILABLE') return { kind: 'unavailable', error: err };
      if (err instanceof errors.JWTExpired) return { kind: 'invalid', code: 'TOKEN_EXPIRED', reason: 'expired' };
      const reason = err instanceof errors.JOSEError ? err.code : 'not a token';
      this.logger.debug({ reason }, 'a token was refused');
      return { kind: 'invalid', code: 'TOKEN_INVALID', reason };
    }
  }
}
