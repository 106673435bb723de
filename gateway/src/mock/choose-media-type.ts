import Negotiator from 'negotiator';

/**
 * The most media ranges of one `Accept` weighed against the declared types. Browsers send fewer than ten; the
 * negotiator weighs every range against every type, so a 16 KB `Accept` of 2,000 ranges against a response of 400
 * types would be 800,000 comparisons on the event loop.
 */
export const MAX_ACCEPT_RANGES = 32;

const baseOf = (type: string): string => type.split(';')[0].trim().toLowerCase();

/**
 * The declared type `accept` prefers (negotiator's rules: q-values, then specificity, then the order of the
 * declared types), or undefined when it accepts none; no `Accept` accepts anything. Only ranges that can match a
 * declared type are weighed (`*` + `/*`, the type's `major/*`, the type itself), each once, the first
 * MAX_ACCEPT_RANGES of them: one pass over the header, then a bounded negotiation.
 */
export function chooseMediaType(accept: string | undefined, available: readonly string[]): string | undefined {
  if (accept === undefined) return new Negotiator({ headers: {} }).mediaType([...available]);
  const types = new Set(available.map(baseOf));
  const majors = new Set([...types].map((type) => `${type.split('/')[0]}/*`));
  const kept = new Set<string>();
  for (const range of accept.split(',')) {
    const text = range.trim().toLowerCase();
    const base = baseOf(text);
    if (base === '*/*' || majors.has(base) || types.has(base)) kept.add(text);
    if (kept.size === MAX_ACCEPT_RANGES) break;
  }
  if (kept.size === 0) return undefined;
  return new Negotiator({ headers: { accept: [...kept].join(',') } }).mediaType([...available]);
}
