import Mustache, { type TemplateSpans } from 'mustache';
import { readErrorMessage, RestbusError } from '@restbus/infra';
import { showPath } from '../project/show-path';
import type { TemplateSet } from './create-template-set';

export interface LoadedTemplates {
  templates: Record<string, string>;
  /** Every partial the templates use, by the name they use it under. */
  partials: Record<string, string>;
}

/** mustache.js's parse tree: type, name, start, end, and a section's children. */
export type Token = TemplateSpans[number];

/** Every token of a template, depth first. */
export function listTokens(text: string): Token[] {
  const tokens: Token[] = [];
  const walk = (level: Token[]): void => {
    for (const token of level) {
      tokens.push(token);
      // A partial's fifth is its indentation, a section's its children.
      if (Array.isArray(token[4])) walk(token[4]);
    }
  };
  walk(Mustache.parse(text));
  return tokens;
}

export interface LoadOptions {
  /** The file a template or partial name stands for; by default `name.mustache` (`{{> method}}`). */
  fileOf?: (name: string) => string;
  /** Problems of a file to refuse it for, before it is parsed (e.g. another engine's syntax), a line each. */
  refuse?: (text: string, file: string) => string[];
}

const toMustacheFile = (name: string): string => (name.endsWith('.mustache') ? name : `${name}.mustache`);

/**
 * Loads the named templates and, transitively, the partials they include (`{{> name}}` is `name.mustache`), so a
 * project can add partials of its own. A missing template or partial, or a mustache syntax error, is refused before
 * anything is written.
 */
export async function loadTemplates(
  set: TemplateSet,
  names: string[],
  kind: string,
  options: LoadOptions = {},
): Promise<LoadedTemplates> {
  const fileOf = options.fileOf ?? toMustacheFile;
  const loaded: LoadedTemplates = { templates: {}, partials: {} };
  const pending: Array<{ name: string; usedBy?: string }> = names.map((name) => ({ name }));
  for (let next = pending.shift(); next; next = pending.shift()) {
    const { name, usedBy } = next;
    if (usedBy === undefined ? name in loaded.templates : name in loaded.partials) continue;
    const file = fileOf(name);
    const found = await set.read(file);
    if (!found) {
      const where = usedBy ? ` (used by ${usedBy})` : '';
      const dirs = set.dirs.map((dir) => showPath(set.root, dir)).join(' or ');
      throw new RestbusError('PROJECT_INVALID', `templates/${kind}: no ${file}${where} in ${dirs}`);
    }
    const refused = options.refuse?.(found.text, found.file) ?? [];
    if (refused.length) throw new RestbusError('PROJECT_INVALID', refused.join('\n'));
    let uses: string[];
    try {
      uses = listTokens(found.text)
        .filter((token) => token[0] === '>')
        .map((token) => token[1]);
    } catch (err) {
      throw new RestbusError('PROJECT_INVALID', `${showPath(set.root, found.file)}: ${readErrorMessage(err)}`);
    }
    if (usedBy === undefined) loaded.templates[name] = found.text;
    else loaded.partials[name] = found.text;
    for (const use of uses) {
      if (!(use in loaded.partials)) pending.push({ name: use, usedBy: showPath(set.root, found.file) });
    }
  }
  return loaded;
}
