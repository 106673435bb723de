import { statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import Mustache from 'mustache';
import type { ServicePage } from './build-service-view';
import { buildUpstreamIndexView, buildUpstreamServiceView, type UpstreamContext } from './build-upstream-view';
import { toRoot } from './docs-paths';
import { createTemplateSet } from './find-templates';
import { listTokens, loadTemplates } from './load-templates';
import type { MarkdownRenderer } from './render-markdown';
import type { ToolProject } from './read-project';

/** rest-tool 0.4/0.5 rendered a service's page from this file of the project's `templates/docs/`. */
export const UPSTREAM_SERVICE_TEMPLATE = 'restapi.html';
const UPSTREAM_INDEX_TEMPLATE = 'index.html';
/** What upstream copied from `templates/docs/` into `docs/` besides the pages. */
const UPSTREAM_ASSET_DIRS = ['images', 'js', 'sass', 'stylesheets'];
const UPSTREAM_ASSET_FILES = ['README.md'];

/** A project made by rest-tool 0.4/0.5 carries its docs templates: `templates/docs/restapi.html` says so. */
export function hasUpstreamDocsTemplates(projectRoot: string): boolean {
  try {
    return statSync(join(projectRoot, 'templates', 'docs', UPSTREAM_SERVICE_TEMPLATE)).isFile();
  } catch {
    return false;
  }
}

const HANDLEBARS_SECTION = /^(if|unless|each|with)(\s|$)/;

/**
 * rest-tool 0.5 rendered project templates with Mustache (mu2); Handlebars blocks (`{{#if x}}`, `{{else}}`,
 * partials with arguments) came with rest-tool 1.x's own templates. In Mustache `{{#if x}}` is a section named
 * "if x", always empty: said once per file and line, since the page silently lacks what the author meant.
 */
export function findHandlebarsSyntax(text: string, file: string): string[] {
  const lineOf = (index: number): number => text.slice(0, index).split('\n').length;
  return listTokens(text)
    .filter(
      ([type, name]) =>
        ((type === '#' || type === '^') && HANDLEBARS_SECTION.test(name)) ||
        (type === 'name' && name === 'else') ||
        (type === '>' && /\s/.test(name.trim())),
    )
    .map(
      ([, name, start]) =>
        `${file}:${lineOf(start)}: "${name}" is Handlebars syntax; project templates are rendered as Mustache, ` +
        'as rest-tool 0.5 rendered them, so it renders nothing',
    );
}

/** Files below `dir`, path inside docs/ → source; nothing when it does not exist. */
async function listFilesBelow(dir: string, docsPrefix: string): Promise<Map<string, string>> {
  const files = new Map<string, string>();
  let entries;
  try {
    entries = await readdir(dir, { recursive: true, withFileTypes: true });
  } catch {
    return files;
  }
  for (const entry of entries) {
    if (!entry.isFile() || entry.name.startsWith('.')) continue;
    const source = join(entry.parentPath ?? entry.path, entry.name);
    files.set(posix.join(docsPrefix, ...relative(dir, source).split(sep)), source);
  }
  return files;
}

/**
 * The time upstream printed as "Last update": here the newest change to the config or a descriptor, so that
 * unchanged inputs give unchanged pages (upstream used the time of the run and rewrote every page each time).
 */
async function findLastUpdate(project: ToolProject): Promise<string> {
  const files = [
    join(project.environment.restapiRoot, 'config.yml'),
    ...project.services.map((service) => join(project.root, service.file)),
  ];
  const times = await Promise.all(files.map(async (file) => (await stat(file).catch(() => undefined))?.mtimeMs ?? 0));
  return new Date(Math.max(...times)).toString();
}

export interface UpstreamDocs {
  /** Path inside docs/ → content, or the file to copy. */
  outputs: Map<string, string | { from: string }>;
  warnings: string[];
}

/**
 * The documentation of a project that brings rest-tool 0.5's templates, rendered as rest-tool 0.5 did: `index.html`
 * from `templates/docs/index.html`, a page per service from `restapi.html` with every other file of the folder as a
 * partial by its file name (`{{> method.html}}`), and `images/`, `js/`, `sass/`, `stylesheets/` and `README.md`
 * copied. The pages and the files they link to are where our own documentation puts them (`services/<path>/`).
 */
export async function renderUpstreamDocs(
  project: ToolProject,
  pages: ServicePage[],
  options: { markdown: MarkdownRenderer; escaping: { escape: (value: unknown) => string } },
): Promise<UpstreamDocs> {
  const templatesDir = join(project.root, 'templates', 'docs');
  const set = createTemplateSet(project.root, 'docs', { projectOnly: true });
  const { templates, partials, warnings } = await loadTemplates(
    set,
    [UPSTREAM_INDEX_TEMPLATE, UPSTREAM_SERVICE_TEMPLATE],
    'docs',
    {
      fileOf: (name) => name,
      inspect: (text, file) => findHandlebarsSyntax(text, posix.join(...relative(project.root, file).split(sep))),
    },
  );

  const outputs = new Map<string, string | { from: string }>();
  for (const dir of UPSTREAM_ASSET_DIRS) {
    for (const [path, source] of await listFilesBelow(join(templatesDir, dir), dir))
      outputs.set(path, { from: source });
  }
  for (const file of UPSTREAM_ASSET_FILES) {
    const source = join(templatesDir, file);
    if (statSync(source, { throwIfNoEntry: false })?.isFile()) outputs.set(file, { from: source });
  }

  const context: UpstreamContext = {
    config: project.config,
    markdown: options.markdown,
    serviceDocNames: project.services.map((service, index) => ({
      name: String(service.descriptor.name),
      docFileName: pages[index].file,
    })),
    lastUpdate: await findLastUpdate(project),
  };
  project.services.forEach((service, index) => {
    const page = pages[index];
    for (const [path, source] of page.copies) outputs.set(path, { from: source });
    const view = buildUpstreamServiceView(
      service.descriptor,
      // Where the page and its files are inside docs/: upstream's `servicesRoot + path` when servicesRoot is
      // `services`, as in every project rest-tool made.
      { contentPath: posix.dirname(page.file), relPath: toRoot(page.file) },
      context,
    );
    outputs.set(page.file, Mustache.render(templates[UPSTREAM_SERVICE_TEMPLATE], view, partials, options.escaping));
  });
  outputs.set(
    'index.html',
    Mustache.render(templates[UPSTREAM_INDEX_TEMPLATE], buildUpstreamIndexView(context), partials, options.escaping),
  );
  return { outputs, warnings };
}
