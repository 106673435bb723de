/**
 * A small deterministic generator (mulberry32) for the hostile-input suites: the same seed gives the same inputs
 * on every run, so a failure found once is found again.
 */
export interface SeededRandom {
  /** A float in [0, 1). */
  next(): number;
  /** A whole number in [0, n). */
  below(n: number): number;
  /** One element of a non-empty list. */
  pick<T>(items: readonly T[]): T;
  /** A string of `length` characters drawn from `alphabet`. */
  text(length: number, alphabet?: string): string;
}

const PRINTABLE = 'abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789-._~!$&\'()*+,;=:@/?#[]%{}<>"\\ ';

export function createSeededRandom(seed: number): SeededRandom {
  let state = seed >>> 0;
  const next = (): number => {
    state = (state + 0x6d2b79f5) >>> 0;
    let t = state;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
  const below = (n: number): number => Math.floor(next() * n);
  return {
    next,
    below,
    pick: (items) => items[below(items.length)],
    text: (length, alphabet = PRINTABLE) => Array.from({ length }, () => alphabet[below(alphabet.length)]).join(''),
  };
}
