import { statSync } from 'node:fs';
import { readdir, readFile } from 'node:fs/promises';
import { join, posix, relative, sep } from 'node:path';
import Mustache from 'mustache';
import { buildServiceView, type ServicePage } from './build-service-view';
import { readErrorCode, readErrorMessage, RestbusError } from '@restbus/infra';
import { hashOf, MANIFEST_FILE, readManifest, removeStaleFiles, writeManifest, type Manifest } from './docs-manifest';
import { findFolderProblems } from './find-folder-problems';
import { createTemplateSet } from './create-template-set';
import { forEachLimited } from './for-each-limited';
import { loadTemplates } from './load-templates';
import { planDocsUpdate, type DocsOutput } from './plan-docs-update';
import { readProject } from './read-project';
import { hasUpstreamDocsTemplates, renderUpstreamDocs, UPSTREAM_SERVICE_TEMPLATE } from './render-upstream-docs';
import { removeLeftoverTempFiles } from './remove-leftover-temp-files';
import { createMarkdownRenderer, escapeHtml } from './render-markdown';
import { readFileStart } from './preview-file';
import { SERVICE_LIST_FILE, toServiceListScript } from './service-list';
import { checkReferencedFiles, writeFileAtomic } from '@restbus/project-format';
import { showPath } from '../project/show-path';

export interface GenerateDocsOptions {
  projectDir: string;
  /** The project config, relative to projectDir (default `config.yml`). */
  configFile?: string;
  /** Receives one line per step and per generated page. */
  verbose?: (line: string) => void;
  /**
   * Replace generated files edited since, and files the tool did not write, where it writes its own (never a folder,
   * never through a symbolic link leading out of docs/).
   */
  force?: boolean;
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

/** Past this many, files in the way are counted, not listed: a line per file of a large project helps no one. */
const MAX_PROBLEMS_SHOWN = 20;

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

/** Our own pages: `index.mustache` and `service.mustache`, the project's templates overriding ours file by file. */
async function renderOwnDocs(
  projectRoot: string,
  pages: ServicePage[],
  config: Record<string, unknown>,
  verbose: (line: string) => void,
): Promise<Map<string, string | { from: string }>> {
  const templateSet = createTemplateSet(projectRoot, 'docs');
  verbose(`templates: ${templateSet.dirs.map((dir) => showPath(projectRoot, dir)).join(', then ')}`);
  const { templates, partials } = await loadTemplates(templateSet, ['index', 'service'], 'docs');
  const outputs = new Map<string, string | { from: string }>();
  for (const [path, source] of await listAssets(templateSet.dirs)) outputs.set(path, { from: source });
  for (const page of pages) {
    for (const [path, source] of page.copies) outputs.set(path, { from: source });
  }
  for (const page of pages)
    outputs.set(page.file, Mustache.render(templates.service, page.view, partials, htmlEscaping));
  outputs.set(SERVICE_LIST_FILE, toServiceListScript(pages.map((page) => page.listing)));
  const indexView = {
    ...config,
    title: `${String(config.projectName)} ${String(config.apiVersion)}`,
    root: '',
    pagePath: 'index.html',
    services: pages.map((page) => page.entry),
    serviceCount: pages.length,
    hasServices: pages.length > 0,
  };
  outputs.set('index.html', Mustache.render(templates.index, indexView, partials, htmlEscaping));
  return outputs;
}

/**
 * Writes the project's HTML documentation into `<project>/docs/`: `index.html`, one `services/<path>/service.html`
 * per listed service, the descriptors and mock/schema files those pages link to, and `assets/`. Only files this
 * generator wrote before (listed in docs/.rest-tool-docs.json, with their hashes) are replaced or removed; anything
 * else in the way — a hand-written file, a generated file edited since, a symbolic link leading out of docs/ — is
 * reported (RestbusError BAD_REQUEST, a line per file) and nothing at all is written. A project with rest-tool 0.5's
 * templates (`templates/docs/restapi.html`) gets its pages from them instead (renderUpstreamDocs). `warnings` names
 * each file a descriptor refers to that is not there (its page says "file not found"), as `rest-tool validate` does.
 */
export async function generateDocs(options: GenerateDocsOptions): Promise<{ written: number; warnings: string[] }> {
  const verbose = options.verbose ?? ((): void => undefined);
  const project = await readProject(options);
  const docsDir = join(project.root, 'docs');
  const markdown = createMarkdownRenderer();
  const { config } = project;
  const upstream = hasUpstreamDocsTemplates(project.root);
  const references = await checkReferencedFiles(project);
  const pages: ServicePage[] = project.services.map((service) =>
    buildServiceView(
      { ...service, descriptor: service.descriptor, dir: join(project.servicesDir, service.path) },
      // Upstream's templates show no file content: nothing is read for them.
      {
        servicesDir: project.servicesDir,
        existing: isFile,
        markdown,
        config,
        readStart: upstream ? undefined : readFileStart,
        keepFileNames: upstream,
      },
    ),
  );

  // Everything to write, path inside docs/ → content or the file to copy it from.
  let outputs: Map<string, string | { from: string }>;
  if (upstream) {
    verbose(`templates: rest-tool 0.5's, in ${join('templates', 'docs')} (${UPSTREAM_SERVICE_TEMPLATE})`);
    outputs = await renderUpstreamDocs(project, pages, { markdown, escaping: htmlEscaping });
  } else {
    outputs = await renderOwnDocs(project.root, pages, config, verbose);
  }

  const rendered = new Map<string, DocsOutput>();
  await forEachLimited([...outputs], 32, async ([path, output]) => {
    const data = typeof output === 'string' ? Buffer.from(output) : await readFile(output.from);
    rendered.set(path, { data, hash: hashOf(data) });
  });

  // Everything is checked before anything is written: a refused update leaves docs/ exactly as it was.
  const manifest = await readManifest(docsDir);
  const previous = manifest.kind === 'read' ? manifest.known : new Map<string, string[]>();
  const dirs = new Set(['', ...[...rendered.keys(), ...previous.keys()].map((path) => posix.dirname(path))]);
  dirs.delete('.');
  const folderProblems = await findFolderProblems(project.root, docsDir, dirs);
  // Files below a folder at fault are not looked at: they are not where they seem to be.
  const blocked = [...folderProblems.keys()];
  const checked = blocked.includes('')
    ? new Map<string, DocsOutput>()
    : new Map([...rendered].filter(([path]) => !blocked.some((dir) => path.startsWith(`${dir}/`))));
  const plan = await planDocsUpdate(
    docsDir,
    checked,
    blocked.includes('') ? { kind: 'absent' } : manifest,
    options.force ?? false,
  );
  const problems = [...folderProblems.values(), ...plan.problems];
  if (problems.length) {
    const shown = problems.slice(0, MAX_PROBLEMS_SHOWN);
    if (problems.length > shown.length) shown.push(`… and ${problems.length - shown.length} more`);
    throw new RestbusError(
      'BAD_REQUEST',
      `${shown.join('\n')}\nnothing was written: rest-tool docs replaces only the files it generated`,
    );
  }

  await removeLeftoverTempFiles(docsDir, dirs, new Set([...rendered.keys(), MANIFEST_FILE]), verbose);
  const current: Manifest = new Map([...rendered].map(([path, output]) => [path, output.hash]));
  if (plan.toWrite.length) {
    // Recorded first, so an update killed midway leaves files the next one still knows as its own.
    const before: Manifest = new Map([...previous].map(([path, hashes]) => [path, hashes[0]]));
    for (const [path, hash] of plan.ours) before.set(path, hash);
    const pending: Manifest = new Map();
    for (const path of plan.toWrite) {
      const hash = current.get(path);
      if (hash !== undefined) pending.set(path, hash);
    }
    await writeManifest(docsDir, before, pending);
  }
  const knownDirs = new Set<string>();
  await forEachLimited(plan.toWrite, 32, async (path) => {
    // The plan writes rendered files only.
    const output = rendered.get(path);
    if (output === undefined) return;
    try {
      await writeFileAtomic(join(docsDir, ...path.split('/')), output.data, {
        durable: false,
        knownDirs,
      });
    } catch (err) {
      // The manifest already lists this run's files as pending: the next run takes over the ones written so far.
      const reason = readErrorCode(err) ?? readErrorMessage(err);
      throw new RestbusError('INTERNAL', `docs/${path}: could not be written (${reason}); run again once it can be`, {
        cause: err,
      });
    }
    if (path.endsWith('.html')) verbose(`wrote ${path}`);
  });
  const written = plan.toWrite.length;
  verbose(`${written} files written into ${showPath(project.root, docsDir)}, ${current.size - written} unchanged`);
  await removeStaleFiles(docsDir, previous, current, verbose);
  await writeManifest(docsDir, current);
  return { written, warnings: [...references.errors, ...references.warnings] };
}
