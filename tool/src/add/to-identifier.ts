/** Upstream's `cName`: the name with its first letter upper-cased. */
export const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A name usable in a JavaScript identifier, for the suggested `implementation: api.get<Identifier>`. */
export function toIdentifier(name: string): string {
  const words = name.split(/[^\p{L}\p{N}_$]+/u).filter(Boolean);
  const identifier = words.map(capitalise).join('');
  return /^[\p{L}_$]/u.test(identifier) ? identifier : `Service${identifier}`;
}
