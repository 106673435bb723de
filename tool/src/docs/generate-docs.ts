import { statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import Mustache from 'mustache';
import { buildServiceView, type ServicePage } from './build-service-view';
import { hashOf, readManifest, removeStaleFiles, writeManifest, type Manifest } from './docs-manifest';
import { createTemplateSet } from './find-templates';
import { loadTemplates } from './load-templates';
import { readProject } from './read-project';
import { createMarkdownRenderer, escapeHtml } from './render-markdown';
import { writeFileAtomic } from './write-file-atomic';

export interface GenerateDocsOptions {
  projectDir: string;
  /** The project config, relative to projectDir (default `config.yml`). */
  configFile?: string;
  /** Receives one line per step and per generated page. */
  verbose?: (line: string) => void;
}

// Mustache hands over numbers too; its own default escape also encodes / ` and =, which only clutters the pages.
const htmlEscaping = { escape: (value: unknown): string => escapeHtml(String(value)) };

const isFile = (path: string): boolean => {
  try {
    return statSync(path).isFile();
  } catch {
    return false;
  }
};

const hasContent = async (file: string, data: Buffer): Promise<boolean> => {
  try {
    return (await readFile(file)).equals(data);
  } catch {
    return false;
  }
};

/** Runs `task` over `items`, at most `limit` at a time: thousands of small writes at once only queue in libuv. */
async function forEachLimited<T>(items: T[], limit: number, task: (item: T) => Promise<void>): Promise<void> {
  let next = 0;
  const worker = async (): Promise<void> => {
    while (next < items.length) await task(items[next++]);
  };
  await Promise.all(Array.from({ length: Math.min(limit, items.length) }, worker));
}

/** Files under each templates folder's `assets/`, path inside docs/ → source; the project's win over the tool's. */
async function listAssets(templateDirs: string[]): Promise<Map<string, string>> {
  const assets = new Map<string, string>();
  for (const dir of [...templateDirs].reverse()) {
    const assetsDir = join(dir, 'assets');
    let entries;
    try {
      entries = await readdir(assetsDir, { recursive: true, withFileTypes: true });
    } catch {
      continue;
    }
    for (const entry of entries) {
      if (!entry.isFile()) continue;
      const source = join(entry.parentPath ?? entry.path, entry.name);
      assets.set(posix.join('assets', ...relative(assetsDir, source).split(sep)), source);
    }
  }
  return assets;
}

/**
 * Writes the project's HTML documentation into `<project>/docs/`: `index.html`, one `services/<path>/service.html`
 * per listed service, the descriptors and mock/schema files those pages link to, and `assets/`. Only files this
 * generator wrote before are replaced or removed; every other file in docs/ is left alone.
 */
export async function generateDocs(options: GenerateDocsOptions): Promise<{ written: number }> {
  const verbose = options.verbose ?? ((): void => undefined);
  const project = await readProject(options);
  const docsDir = join(project.root, 'docs');
  const templateSet = createTemplateSet(project.root, 'docs');
  verbose(`templates: ${templateSet.dirs.join(', then ')}`);
  const { templates, partials } = await loadTemplates(templateSet, ['index', 'service'], 'docs');

  const markdown = createMarkdownRenderer();
  const config = project.config as Record<string, unknown>;
  const pages: ServicePage[] = project.services.map((service) =>
    buildServiceView(
      { ...service, descriptor: service.descriptor, dir: join(project.servicesDir, service.path) },
      { servicesDir: project.servicesDir, existing: isFile, markdown, config },
    ),
  );

  // Everything to write, path inside docs/ → content or the file to copy it from.
  const outputs = new Map<string, string | { from: string }>();
  for (const [path, source] of await listAssets(templateSet.dirs)) outputs.set(path, { from: source });
  for (const page of pages) {
    for (const [path, source] of page.copies) outputs.set(path, { from: source });
  }
  for (const page of pages)
    outputs.set(page.file, Mustache.render(templates.service, page.view, partials, htmlEscaping));
  const indexView = {
    ...config,
    title: `${String(config.projectName)} ${String(config.apiVersion)}`,
    root: '',
    services: pages.map((page) => page.entry),
    serviceCount: pages.length,
    hasServices: pages.length > 0,
  };
  outputs.set('index.html', Mustache.render(templates.index, indexView, partials, htmlEscaping));

  const previous = await readManifest(docsDir);
  const current: Manifest = new Map();
  const knownDirs = new Set<string>();
  let written = 0;
  await forEachLimited([...outputs], 32, async ([path, output]) => {
    const data = typeof output === 'string' ? Buffer.from(output) : await readFile(output.from);
    const hash = hashOf(data);
    current.set(path, hash);
    const file = join(docsDir, ...path.split('/'));
    // An unchanged file is not written again: an update of a large project is mostly reads, and mtimes stay.
    if (previous.get(path) === hash && (await hasContent(file, data))) return;
    await writeFileAtomic(file, data, knownDirs);
    written++;
    if (path.endsWith('.html')) verbose(`wrote ${path}`);
  });
  verbose(`${written} files written into ${docsDir}, ${current.size - written} unchanged`);
  await removeStaleFiles(docsDir, previous, current, verbose);
  await writeManifest(docsDir, current);
  return { written };
}
