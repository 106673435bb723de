/** A media type without its parameters, in lower case: `Image/PNG; q=1` is `image/png`. */
export const mediaTypeOf = (type: unknown): string =>
  String(type ?? '')
    .split(';')[0]
    .trim()
    .toLowerCase();

/**
 * Whether a media type is one of an encoding's `contentType`: a comma-separated list of types and ranges
 * (`image/png, image/*`, `*` + `/*` for any), compared without parameters and case.
 */
export function matchesMediaRange(type: string, contentType: string): boolean {
  const actual = mediaTypeOf(type);
  const [kind] = actual.split('/');
  return contentType.split(',').some((range) => {
    const wanted = mediaTypeOf(range);
    return wanted === actual || wanted === '*/*' || wanted === `${kind}/*`;
  });
}
