import { readFile } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import { readErrorCode } from '@restbus/infra';

export interface TemplateSet {
  /** The project folder: messages name the folders and files relative to it (showPath). */
  root: string;
  /** The folders searched, the project's first. */
  dirs: string[];
  /** A template's text from the first folder that has it, or undefined. */
  read(name: string): Promise<{ text: string; file: string } | undefined>;
}

/** The tool's own templates; the same relative place from `src/docs` and from `dist/docs`. */
export const toolTemplatesDir = (kind: 'docs' | 'test'): string => resolve(__dirname, '..', '..', 'templates', kind);

/**
 * A project's `templates/<kind>/` overrides the tool's templates file by file, so a project can customise one
 * partial and keep the rest, and a project made by upstream rest-tool (whose templates have other names) still gets
 * working defaults.
 */
export function createTemplateSet(
  projectRoot: string,
  kind: 'docs' | 'test',
  { projectOnly = false } = {},
): TemplateSet {
  const dirs = [join(projectRoot, 'templates', kind), ...(projectOnly ? [] : [toolTemplatesDir(kind)])];
  const cache = new Map<string, Promise<{ text: string; file: string } | undefined>>();
  const lookUp = async (name: string): Promise<{ text: string; file: string } | undefined> => {
    for (const dir of dirs) {
      const file = join(dir, name);
      try {
        return { text: await readFile(file, 'utf8'), file };
      } catch (err) {
        const code = readErrorCode(err);
        if (code !== 'ENOENT' && code !== 'ENOTDIR' && code !== 'EISDIR') throw err;
      }
    }
    return undefined;
  };
  return {
    root: projectRoot,
    dirs,
    read(name) {
      let found = cache.get(name);
      if (!found) cache.set(name, (found = lookUp(name)));
      return found;
    },
  };
}
