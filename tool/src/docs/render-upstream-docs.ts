import { statSync } from 'node:fs';
import { readdir, stat } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import Mustache from 'mustache';
import type { ServicePage } from './build-service-view';
import { buildUpstreamIndexView, buildUpstreamServiceView, type UpstreamContext } from './build-upstream-view';
import { toRoot } from './docs-paths';
import { createTemplateSet } from './create-template-set';
import { loadTemplates } from './load-templates';
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

// `{{#if x}}`, `{{^unless x}}`, `{{/each}}`, `{{else}}`, and a partial given arguments (`{{> method.html a=b}}`).
const HANDLEBARS = /\{\{\s*(?:[#^/]\s*(?:if|unless|each|with)\b[^}]*|else\s*|>\s*\S+\s+[\w.]+=[^}]*)\}\}/g;

/**
 * rest-tool 0.5 rendered project templates with Mustache (mu2); Handlebars blocks came with rest-tool 1.x's own
 * templates, which projects never carried. Mustache reads them as an unclosed section, a variable or a missing
 * partial, so a template with them is refused, each place named by file and line.
 */
export function findHandlebarsSyntax(text: string, file: string): string[] {
  return [...text.matchAll(HANDLEBARS)].map(
    (match) =>
      `${file}:${text.slice(0, match.index).split('\n').length}: ${match[0]} is Handlebars; a project's ` +
      'templates/docs are Mustache, as rest-tool 0.5 rendered them (write {{#x}}…{{/x}} for {{#if x}}…{{/if}})',
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

/**
 * The documentation of a project that brings rest-tool 0.5's templates, rendered as rest-tool 0.5 did: `index.html`
 * from `templates/docs/index.html` (when there is one), a page per service from `restapi.html` with every other file of the folder as a
 * partial by its file name (`{{> method.html}}`), and `images/`, `js/`, `sass/`, `stylesheets/` and `README.md`
 * copied. The pages and the files they link to are where our own documentation puts them (`services/<path>/`).
 * Path inside docs/ → content, or the file to copy.
 */
export async function renderUpstreamDocs(
  project: ToolProject,
  pages: ServicePage[],
  options: { markdown: MarkdownRenderer; escaping: { escape: (value: unknown) => string } },
): Promise<Map<string, string | { from: string }>> {
  const templatesDir = join(project.root, 'templates', 'docs');
  const set = createTemplateSet(project.root, 'docs', { projectOnly: true });
  // The oldest layout (the restapi tool's) had no index.html: its projects get their service pages only.
  const hasIndex = statSync(join(templatesDir, UPSTREAM_INDEX_TEMPLATE), { throwIfNoEntry: false })?.isFile();
  const { templates, partials } = await loadTemplates(
    set,
    hasIndex ? [UPSTREAM_INDEX_TEMPLATE, UPSTREAM_SERVICE_TEMPLATE] : [UPSTREAM_SERVICE_TEMPLATE],
    'docs',
    {
      fileOf: (name) => name,
      refuse: (text, file) => findHandlebarsSyntax(text, posix.join(...relative(project.root, file).split(sep))),
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
  if (hasIndex) {
    outputs.set(
      'index.html',
      Mustache.render(templates[UPSTREAM_INDEX_TEMPLATE], buildUpstreamIndexView(context), partials, options.escaping),
    );
  }
  return outputs;
}
