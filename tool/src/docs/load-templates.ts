import Mustache from 'mustache';
import { RestbusError } from '@restbus/infra';
import type { TemplateSet } from './find-templates';

export interface LoadedTemplates {
  templates: Record<string, string>;
  /** Every partial the templates use, by the name they use it under. */
  partials: Record<string, string>;
}

type Token = [string, string, number, number, Token[]?];

function partialNames(text: string): string[] {
  const names: string[] = [];
  const walk = (tokens: Token[]): void => {
    for (const token of tokens) {
      if (token[0] === '>') names.push(token[1]);
      if (token[4]) walk(token[4]);
    }
  };
  walk(Mustache.parse(text) as Token[]);
  return names;
}

/**
 * Loads the named templates and, transitively, the partials they include (`{{> name}}` is `name.mustache`), so a
 * project can add partials of its own. A missing template or partial, or a mustache syntax error, is refused before
 * anything is written.
 */
export async function loadTemplates(set: TemplateSet, names: string[], kind: string): Promise<LoadedTemplates> {
  const loaded: LoadedTemplates = { templates: {}, partials: {} };
  const pending: Array<{ name: string; usedBy?: string }> = names.map((name) => ({ name }));
  for (let next = pending.shift(); next; next = pending.shift()) {
    const { name, usedBy } = next;
    if (usedBy === undefined ? name in loaded.templates : name in loaded.partials) continue;
    const file = name.endsWith('.mustache') ? name : `${name}.mustache`;
    const found = await set.read(file);
    if (!found) {
      const where = usedBy ? ` (used by ${usedBy})` : '';
      throw new RestbusError('PROJECT_INVALID', `templates/${kind}: no ${file}${where} in ${set.dirs.join(' or ')}`);
    }
    let uses: string[];
    try {
      uses = partialNames(found.text);
    } catch (err) {
      throw new RestbusError('PROJECT_INVALID', `${found.file}: ${(err as Error).message}`);
    }
    if (usedBy === undefined) loaded.templates[name] = found.text;
    else loaded.partials[name] = found.text;
    for (const use of uses) if (!(use in loaded.partials)) pending.push({ name: use, usedBy: found.file });
  }
  return loaded;
}
