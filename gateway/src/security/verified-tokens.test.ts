import { VerifiedTokens, type VerifiedToken } from './verified-tokens';

const grant = (expiresAt: number, claims: Record<string, unknown> = {}): VerifiedToken => ({
  subject: 'alice',
  scopes: new Set(['read']),
  issuer: 'https://issuer.test',
  claims,
  expiresAt,
});

/** The tests' clock: fixed, and moved by the tests that need time to pass. */
const NOW = 1_800_000_000_000;
const LIMITS = { maxEntries: 10_000, maxBytes: 1e6, maxAgeMs: 60_000 };

describe('the verified tokens kept', () => {
  it('are found by the whole token only: a token that shares a prefix or a signature is another entry', () => {
    const tokens = new VerifiedTokens(LIMITS, () => NOW);
    tokens.add('aaa.bbb.sig', grant(NOW + 60_000));
    expect(tokens.get('aaa.bbb.sig')?.subject).toBe('alice');
    expect(tokens.get('aaa.bbb.si')).toBeUndefined();
    expect(tokens.get('aaa.ccc.sig')).toBeUndefined();
  });

  it('are found in place in an Authorization header by the whole token, however much of its end another shares', () => {
    const tokens = new VerifiedTokens(LIMITS, () => NOW);
    const signature = 'S'.repeat(40);
    tokens.add(`head.alice.${signature}`, grant(NOW + 60_000));
    tokens.add(`head.bob.${signature}`, { ...grant(NOW + 60_000), subject: 'bob' });
    expect(tokens.find(`Bearer head.alice.${signature}`, 7)?.subject).toBe('alice');
    expect(tokens.find(`Bearer head.bob.${signature}`, 7)?.subject).toBe('bob');
    expect(tokens.find(`Bearer head.eve.${signature}`, 7)).toBeUndefined();
    expect(tokens.find(`Bearer xhead.alice.${signature}`, 7)).toBeUndefined();
    expect(tokens.find(`Bearer  head.alice.${signature}`, 7)).toBeUndefined();
    // Shorter than the part a lookup starts from: the whole token is that part.
    tokens.add('tiny', grant(NOW + 60_000));
    expect(tokens.find('Bearer tiny', 7)?.subject).toBe('alice');
    expect(tokens.get('tiny')).toBeDefined();
    expect(tokens.find('Bearer ny', 7)).toBeUndefined();
  });

  it('forget an entry that expired or was dropped, wherever it is looked up from', () => {
    let now = NOW;
    const tokens = new VerifiedTokens({ ...LIMITS, maxEntries: 2 }, () => now);
    const signature = 'S'.repeat(40);
    tokens.add(`a.${signature}`, grant(now + 5_000));
    tokens.add(`b.${signature}`, grant(now + 60_000));
    tokens.add(`c.${signature}`, grant(now + 60_000));
    expect(tokens.find(`Bearer a.${signature}`, 7)).toBeUndefined();
    now += 60_000;
    expect(tokens.find(`Bearer b.${signature}`, 7)).toBeUndefined();
    expect(tokens.get(`c.${signature}`)).toBeUndefined();
    expect({ size: tokens.size, bytes: tokens.byteSize }).toEqual({ size: 0, bytes: 0 });
  });

  it('are never trusted past their exp, nor past the longest age allowed', () => {
    let now = NOW;
    const tokens = new VerifiedTokens({ maxEntries: 10, maxBytes: 1e6, maxAgeMs: 60_000 }, () => now);
    tokens.add('short', grant(now + 5_000));
    tokens.add('long', grant(now + 3_600_000));
    now += 5_000;
    expect(tokens.get('short')).toBeUndefined();
    expect(tokens.get('long')).toBeDefined();
    now += 55_000;
    expect(tokens.get('long')).toBeUndefined();
    expect(tokens.size).toBe(0);
  });

  it('keep at most maxEntries, dropping the oldest first', () => {
    const tokens = new VerifiedTokens({ ...LIMITS, maxEntries: 3 }, () => NOW);
    const later = NOW + 60_000;
    for (const token of ['a', 'b', 'c']) tokens.add(token, grant(later));
    tokens.add('d', grant(later));
    expect(['a', 'b', 'c', 'd'].map((token) => tokens.get(token) !== undefined)).toEqual([false, true, true, true]);
    expect(tokens.size).toBe(3);
  });

  it('keep at most maxBytes whatever the number of distinct clients, and never one token larger than that', () => {
    const tokens = new VerifiedTokens({ maxEntries: 1_000_000, maxBytes: 64 * 1024, maxAgeMs: 60_000 }, () => NOW);
    const later = NOW + 60_000;
    for (let i = 0; i < 5000; i++) tokens.add(`token-${i}-${'x'.repeat(200)}`, grant(later, { n: i }));
    expect(tokens.byteSize).toBeLessThanOrEqual(64 * 1024);
    expect(tokens.size).toBeLessThan(5000);
    tokens.add('y'.repeat(64 * 1024), grant(later));
    expect(tokens.get('y'.repeat(64 * 1024))).toBeUndefined();
    expect(tokens.byteSize).toBeLessThanOrEqual(64 * 1024);
  });
});
