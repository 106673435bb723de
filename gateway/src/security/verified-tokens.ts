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
  /** The whole token. */
  key: string;
  token: VerifiedToken;
  bytes: number;
}

/**
 * How many characters of a token's end its lookup hashes: a JWT's signature, as random as a key. A request's header
 * is a new string on every call, so a map keyed by the whole token hashed a thousand characters each time (a tenth of
 * what verification added to a call's cost, in bench:auth's profile); a key made of a string's tail still cut and
 * hashed a new string a call, where a number read off the last characters makes none.
 */
const TAIL = 6;

/** The bucket of the token that is `text` from `start` on: a hash of its last TAIL characters, kept a small integer. */
function hashTail(text: string, start: number): number {
  let hash = 0;
  for (let i = Math.max(start, text.length - TAIL); i < text.length; i++) {
    hash = (hash * 31 + text.charCodeAt(i)) & 0x3fffffff;
  }
  return hash;
}

/**
 * Tokens whose signature and claims were checked, found by the whole token (never a part of it: two tokens that share
 * a prefix or a signature are two entries), so that a client calling often costs one signature check, not one per
 * call. Bounded in entries and bytes (the oldest go first) and in time: never past the token's `exp`.
 */
export class VerifiedTokens {
  /** Every entry by its whole token, oldest first. */
  private readonly entries = new Map<string, Entry>();
  /**
   * The same entries by the hash of their last TAIL characters, where a lookup starts before it compares the whole
   * token. Only
   * verified tokens are added, so nobody can crowd one tail with entries of their making.
   */
  private readonly byTail = new Map<number, Entry[]>();
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
    return this.find(token, 0);
  }

  /** get(text.slice(start)): the token of an `Authorization` header, read where it starts. */
  find(text: string, start: number): VerifiedToken | undefined {
    const bucket = this.byTail.get(hashTail(text, start));
    if (!bucket) return undefined;
    // A slice shares the header's characters, and comparing it is a memory compare (endsWith was twice as slow).
    const token = start === 0 ? text : text.slice(start);
    const entry = bucket.find(({ key }) => key === token);
    if (!entry) return undefined;
    if (entry.token.expiresAt > this.now()) return entry.token;
    this.remove(entry);
    return undefined;
  }

  /** Keeps a verified token until its `expiresAt` or `maxAgeMs`, whichever comes first. */
  add(token: string, verified: VerifiedToken): void {
    const expiresAt = Math.min(verified.expiresAt, this.now() + this.limits.maxAgeMs);
    const bytes = 2 * token.length + JSON.stringify(verified.claims).length + 32 * verified.scopes.size + 128;
    if (bytes > this.limits.maxBytes) return;
    const old = this.entries.get(token);
    if (old) this.remove(old);
    const entry: Entry = { key: token, token: { ...verified, expiresAt }, bytes };
    this.entries.set(token, entry);
    const tail = hashTail(token, 0);
    const bucket = this.byTail.get(tail);
    if (bucket) bucket.push(entry);
    else this.byTail.set(tail, [entry]);
    this.bytes += bytes;
    for (const oldest of this.entries.values()) {
      if (this.entries.size <= this.limits.maxEntries && this.bytes <= this.limits.maxBytes) break;
      this.remove(oldest);
    }
  }

  private remove(entry: Entry): void {
    this.entries.delete(entry.key);
    this.bytes -= entry.bytes;
    const tail = hashTail(entry.key, 0);
    const kept = this.byTail.get(tail)?.filter((other) => other !== entry) ?? [];
    if (kept.length > 0) this.byTail.set(tail, kept);
    else this.byTail.delete(tail);
  }
}
