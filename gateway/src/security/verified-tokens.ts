/** What a verified token grants, kept until it expires. */
export interface VerifiedToken {
  subject: string;
  scopes: ReadonlySet<string>;
  issuer: string;
  claims: Record<string, unknown>;
  /** When it stops being accepted (ms since the epoch): its `exp`, or sooner. */
  expiresAt: number;
}

export interface VerifiedTokenLimits {
  /** Tokens kept at most. */
  maxEntries: number;
  /** Bytes kept at most, counted as the tokens' and their claims' JSON length. */
  maxBytes: number;
  /** How long a token is trusted without a new signature check, at most (ms): a revoked key stops it by then. */
  maxAgeMs: number;
}

export const DEFAULT_VERIFIED_TOKEN_LIMITS: VerifiedTokenLimits = {
  maxEntries: 10_000,
  maxBytes: 16 * 1024 * 1024,
  maxAgeMs: 5 * 60_000,
};

interface Entry {
  token: VerifiedToken;
  bytes: number;
}

/**
 * Tokens whose signature and claims were checked, keyed by the whole token (never a part of it: two tokens that share
 * a prefix or a signature are two entries), so that a client calling often costs one signature check, not one per
 * call. Bounded in entries and bytes (the oldest go first) and in time: never past the token's `exp`.
 */
export class VerifiedTokens {
  private readonly entries = new Map<string, Entry>();
  private bytes = 0;

  constructor(
    private readonly limits: VerifiedTokenLimits = DEFAULT_VERIFIED_TOKEN_LIMITS,
    private readonly now: () => number = Date.now,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  get byteSize(): number {
    return this.bytes;
  }

  /**
   * The token's grant if it was verified and has not expired. A hit changes nothing: taking the entry out and in
   * again on each call (a least-recently-used order) cost a busy gateway more than the odd token verified twice.
   */
  get(token: string): VerifiedToken | undefined {
    const entry = this.entries.get(token);
    if (!entry) return undefined;
    if (entry.token.expiresAt > this.now()) return entry.token;
    this.entries.delete(token);
    this.bytes -= entry.bytes;
    return undefined;
  }

  /** Keeps a verified token until its `expiresAt` or `maxAgeMs`, whichever comes first. */
  add(token: string, verified: VerifiedToken): void {
    const expiresAt = Math.min(verified.expiresAt, this.now() + this.limits.maxAgeMs);
    const bytes = 2 * token.length + JSON.stringify(verified.claims).length + 32 * verified.scopes.size + 128;
    if (bytes > this.limits.maxBytes) return;
    const old = this.entries.get(token);
    if (old) {
      this.entries.delete(token);
      this.bytes -= old.bytes;
    }
    this.entries.set(token, { token: { ...verified, expiresAt }, bytes });
    this.bytes += bytes;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.entries.delete(key);
      this.bytes -= entry.bytes;
    }
  }
}
