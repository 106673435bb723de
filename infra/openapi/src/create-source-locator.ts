import { readFile } from 'node:fs/promises';
import { readSourceFile, type SourceFile } from './read-source-file';

/** Where a value at `path` of an API file is written (1-based), or undefined when the file cannot be read again. */
export type SourceLocator = (
  file: string,
  path: ReadonlyArray<string | number>,
) => Promise<{ line: number; column: number } | undefined>;

/**
 * Positions for diagnostics found after loading (on the dereferenced document, which has none): each file is read and
 * parsed once, on the first position asked of it. A value reached through a `$ref` is placed at the nearest part of
 * the path written in the file itself (the operation, say).
 */
export function createSourceLocator(): SourceLocator {
  const sources = new Map<string, Promise<SourceFile | undefined>>();
  return async (file, path) => {
    let source = sources.get(file);
    if (!source) {
      source = readFile(file, 'utf8').then(
        (text) => readSourceFile(file, text),
        () => undefined,
      );
      sources.set(file, source);
    }
    try {
      return (await source)?.locate(path);
    } catch {
      return undefined; // a file that changed into something the position parser cannot read
    }
  };
}
