import type { RestbusError } from '@restbus/infra';
import type { PolicyCall } from './call-policy';

/** What one scheme's check found in a call. */
export type SchemeOutcome =
  /** The call carries no credentials of the scheme. */
  | { kind: 'absent' }
  /** It carries some, and they cannot be trusted; `reason` is for the log. */
  | { kind: 'invalid'; code: 'TOKEN_INVALID' | 'TOKEN_EXPIRED'; reason: string }
  /** They cannot be checked just now (the issuer's keys were never fetched). */
  | { kind: 'unavailable'; error: RestbusError }
  | {
      kind: 'verified';
      subject: string;
      scopes: ReadonlySet<string>;
      issuer?: string;
      claims: Record<string, unknown>;
    };

/** How the credentials of one declared security scheme are checked, and asked for. */
export interface SchemeCheck {
  /** The scheme's name in the document. */
  readonly name: string;
  /** Synchronous when the outcome is known at once (a token verified before): no promise on the busiest path. */
  check(call: PolicyCall): SchemeOutcome | Promise<SchemeOutcome>;
  /**
   * The `WWW-Authenticate` challenge asking for the scheme's credentials (RFC 9110 §11.6.1), with RFC 6750's `error`
   * (and the scopes wanted) when a bearer token was sent and refused.
   */
  challenge(refusal?: { error: 'invalid_token' | 'insufficient_scope'; scopes?: readonly string[] }): string;
}

/**
 * A quoted-string (RFC 9110 §5.6.4) of a name from the document: quotes and backslashes escaped, what a header
 * cannot carry (controls, past Latin-1) left out, at most `max` characters of it.
 */
export function quoteHeaderValue(text: string, max = 256): string {
  let quoted = '"';
  for (const char of text.slice(0, max)) {
    const code = char.charCodeAt(0);
    if (code < 0x20 || code === 0x7f || code > 0xff) continue;
    quoted += char === '"' || char === '\\' ? `\\${char}` : char;
  }
  return `${quoted}"`;
}
