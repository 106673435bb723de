/**
 * Whether a media type, or a Content-Type header value (parameters and case ignored), is JSON: `application/json` or
 * a `+json` structured syntax suffix (RFC 6839), e.g. `application/problem+json`. The one answer to "is it JSON?".
 */
export function isJsonMediaType(type: string): boolean {
  const essence = type.split(';')[0].trim().toLowerCase();
  return essence === 'application/json' || /^application\/[\w.+-]+\+json$/.test(essence);
}
