/**
 * Compiles `serviceUrlPrefix + uriTemplate` into a matcher. `{name}` is exactly one non-empty path segment; the
 * rest is literal. Matching is case-insensitive with an optional trailing slash, as upstream's Express 3 routes
 * were, so existing clients keep working.
 */
export interface UriMatcher {
  /** Path parameters by name when the path matches, otherwise undefined. */
  match(path: string): Record<string, string> | undefined;
}

const escapeRegExp = (text: string): string => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

export function compileUriTemplate(prefix: string, uriTemplate: string): UriMatcher {
  const names: string[] = [];
  const source = `${prefix}${uriTemplate}`
    .split(/(\{[^}]*\})/)
    .map((part) => {
      if (/^\{[^}]*\}$/.test(part)) {
        names.push(part.slice(1, -1));
        return '([^/]+)';
      }
      return escapeRegExp(part);
    })
    .join('')
    .replace(/\/$/, '');
  const pattern = new RegExp(`^${source}/?$`, 'i');
  return {
    match(path) {
      const found = pattern.exec(path);
      if (!found) return undefined;
      const params: Record<string, string> = {};
      for (let i = 0; i < names.length; i++) {
        try {
          params[names[i]] = decodeURIComponent(found[i + 1]);
        } catch {
          params[names[i]] = found[i + 1];
        }
      }
      return params;
    },
  };
}
