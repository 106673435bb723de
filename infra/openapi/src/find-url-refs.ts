/** A `$ref` that names a URL: where it is written, as written, and the URL the parser would fetch. */
export interface UrlRef {
  /** The URL-like path of the file it is written in, as the parser names files. */
  file: string;
  /** Where in that file. */
  path: Array<string | number>;
  /** The `$ref` as written. */
  ref: string;
  /** What it resolves to against its file. */
  target: string;
}

/**
 * Whether the parser would hand `url` to a network resolver: it has a scheme, and the scheme is not `file:`. A
 * scheme has two letters at least, so that a Windows drive letter stays a path.
 */
export function isRemoteUrl(url: string): boolean {
  return /^[a-z][a-z\d+.-]+:/i.test(url) && !/^file:/i.test(url);
}

/**
 * A `$ref` resolved against the file it is written in, as the parser does: its paths are URLs without a scheme,
 * resolved under a scratch origin, so `//host/x` and `\\host\x` become `https://host/x` and `HTTP:` becomes `http:`.
 */
export function resolveRefUrl(base: string, ref: string): string {
  const scratch = 'https://scratch.invalid';
  const resolved = new URL(ref, new URL(base, scratch));
  return resolved.origin === scratch ? resolved.pathname + resolved.search + resolved.hash : resolved.href;
}

interface Frame {
  value: unknown;
  parent?: Frame;
  key?: string | number;
}

function pathOf(frame: Frame): Array<string | number> {
  const path: Array<string | number> = [];
  for (let at: Frame | undefined = frame; at?.parent; at = at.parent) path.push(at.key!);
  return path.reverse();
}

function targetOf(file: string, ref: string): string | undefined {
  try {
    return resolveRefUrl(file, ref);
  } catch {
    return undefined; // the parser reports a `$ref` it cannot resolve
  }
}

/**
 * Every `$ref` in the files read so far (their parsed values, `$refs` not yet resolved) that is written as a URL
 * or resolves to one. Like the parser, it looks everywhere (an example's `$ref` too). Each object is visited once,
 * so YAML aliases cost nothing and the walk is linear in the files' size.
 */
export function findUrlRefs(files: ReadonlyArray<{ url: string; value: unknown }>): UrlRef[] {
  const found: UrlRef[] = [];
  const seen = new Set<object>();
  for (const { url, value } of files) {
    const stack: Frame[] = [{ value }];
    while (stack.length > 0) {
      const frame = stack.pop()!;
      const node = frame.value;
      if (typeof node !== 'object' || node === null || seen.has(node)) continue;
      seen.add(node);
      const ref = '$ref' in node ? node.$ref : undefined;
      if (typeof ref === 'string' && ref !== '' && !ref.startsWith('#')) {
        const target = targetOf(url, ref);
        if (isRemoteUrl(ref) || (target !== undefined && isRemoteUrl(target))) {
          found.push({ file: url, path: pathOf(frame), ref, target: target ?? ref });
        }
      }
      const entries: Array<[string | number, unknown]> = Array.isArray(node)
        ? node.map((item, i) => [i, item])
        : Object.entries(node);
      // Reversed: the stack pops them in the order they are written.
      for (let i = entries.length - 1; i >= 0; i--) {
        stack.push({ value: entries[i][1], parent: frame, key: entries[i][0] });
      }
    }
  }
  return found;
}
