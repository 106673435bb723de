import { chmod, cp, lstat, mkdir, readFile, readdir, rename, rm, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, join, relative, resolve } from 'node:path';
import { RestbusError } from '@restbus/infra';
import { hasControlCharacter } from '../project/has-control-character';
import { isInside } from '@restbus/project-format';
import { toolTemplatesDir } from '../project/paths';
import { describeFileError } from '../project/describe-file-error';
import { showPath } from '../project/show-path';
import { siblingTempPath } from '@restbus/project-format';
import { renderProjectFile } from './render-project-file';
import { DEFAULT_SERVICE_PORT } from './default-service-port';
import { setProjectPort } from './set-project-port';

export interface CreateProjectOptions {
  cwd: string;
  name: string;
  /**
   * Where the project's API is served and called: its servicePort and baseUrl, and the port of the server
   * environments that serve on servicePort (default 3007, as the specification makes a new project).
   */
  port?: number;
  verbose?: (line: string) => void;
}

/** Template files stored under another name: npm and some tools treat a file named .gitignore specially. */
const RENAMED: Record<string, string> = { gitignore: '.gitignore' };

/** The templates a project keeps a copy of, so that it can change what add, docs and test generate. */
const COPIED_TEMPLATES = ['services', 'docs', 'test'];

/** Why a project name cannot be used, or undefined (also for `import-oas`, which makes a project folder too). */
export function checkProjectName(cwd: string, name: string): string | undefined {
  if (!name.trim()) return 'the project name must not be empty';
  if (hasControlCharacter(name)) return `the project name ${JSON.stringify(name)} contains a control character`;
  const target = resolve(cwd, name);
  if (target === cwd || !isInside(cwd, target)) {
    return `the project name ${JSON.stringify(name)} must name a new folder inside the current one`;
  }
  if (basename(target).startsWith('.')) return `the project name ${JSON.stringify(name)} must not start with "."`;
  return undefined;
}

/** Where restbus-mock is for this tool, for the project's server script to fall back on; "" when not found. */
function findRestbusMock(): string {
  try {
    return join(dirname(require.resolve('@restbus/mock-server/package.json')), 'bin', 'restbus-mock.js');
  } catch {
    return '';
  }
}

async function renderTree(
  from: string,
  to: string,
  values: Record<string, string>,
  written: (path: string) => void,
): Promise<void> {
  await mkdir(to, { recursive: true });
  for (const entry of await readdir(from, { withFileTypes: true })) {
    const source = join(from, entry.name);
    const target = join(to, RENAMED[entry.name] ?? entry.name);
    if (entry.isDirectory()) {
      await renderTree(source, target, values, written);
    } else if (entry.isFile()) {
      await writeFile(target, renderProjectFile(source, await readFile(source), values));
      if ((await stat(source)).mode & 0o100) {
        // An executable template (the server script) stays executable for whoever may read it.
        const { mode } = await stat(target);
        await chmod(target, mode | ((mode & 0o444) >> 2));
      }
      written(target);
    }
  }
}

/** The values the project templates are filled with: `{{projectName}}`, `{{packageName}}`, `{{apiVersion}}`... */
export function projectTemplateValues(
  projectName: string,
  apiVersion: string,
  servicePort = DEFAULT_SERVICE_PORT,
): Record<string, string> {
  return {
    projectName,
    packageName:
      projectName
        .toLowerCase()
        .replace(/[^a-z0-9._-]+/g, '-')
        .replace(/^[._-]+/, '') || 'api',
    apiVersion,
    servicePort: String(servicePort),
    restbusMock: findRestbusMock(),
  };
}

/**
 * Writes a new project's files into `staging`, a fresh folder that is renamed to `dir` afterwards (the paths
 * `verbose` reports): the project templates filled with `values`, data/, docs/, test/ and the copied templates.
 */
export async function writeProjectFiles(
  staging: string,
  dir: string,
  values: Record<string, string>,
  verbose: (line: string) => void,
): Promise<void> {
  const written = (path: string): void => verbose(`wrote ${join(dir, relative(staging, path))}`);
  await renderTree(join(toolTemplatesDir, 'project'), staging, values, written);
  for (const folder of ['data', 'docs', 'test']) await mkdir(join(staging, folder), { recursive: true });
  for (const name of COPIED_TEMPLATES) {
    const source = join(toolTemplatesDir, name);
    if (!(await stat(source).catch(() => undefined))?.isDirectory()) continue;
    await cp(source, join(staging, 'templates', name), { recursive: true });
    verbose(`wrote ${join(dir, 'templates', name)}/`);
  }
}

/**
 * Creates a project folder: config.yml, server/, the monitoring service, data/, docs/, test/, a copy of the tool's
 * templates, a README and a .gitignore. Everything is written into a temporary folder beside the target and renamed
 * into place at the end, so a failure leaves nothing behind.
 */
export async function createProject(options: CreateProjectOptions): Promise<{ dir: string; port: number }> {
  const cwd = resolve(options.cwd);
  const problem = checkProjectName(cwd, options.name);
  if (problem) throw new RestbusError('BAD_REQUEST', `${problem}; nothing was written`);
  const dir = resolve(cwd, options.name);
  const exists = await lstat(dir).then(
    () => true,
    () => false,
  );
  if (exists) throw new RestbusError('BAD_REQUEST', `${showPath(cwd, dir)} exists already; nothing was written`);
  const parent = dirname(dir);
  const parentIsDir = await stat(parent).then(
    (info) => info.isDirectory(),
    () => false,
  );
  if (!parentIsDir) {
    throw new RestbusError('BAD_REQUEST', `the folder ${showPath(cwd, parent)} does not exist; nothing was written`);
  }

  const port = options.port ?? DEFAULT_SERVICE_PORT;
  const values = projectTemplateValues(basename(dir), 'v0.0.0', port);
  const verbose = options.verbose ?? (() => undefined);
  // mkdir (unlike mkdtemp) gives the folder the user's usual permissions.
  const staging = siblingTempPath(dir);
  await mkdir(staging);
  try {
    await writeProjectFiles(staging, showPath(cwd, dir), values, verbose);
    // The templates are written for the default port: only another one is an edit.
    if (port !== DEFAULT_SERVICE_PORT) await setProjectPort(staging, port);
    await rename(staging, dir);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    if (err instanceof RestbusError) throw err;
    const show = (path: string): string => showPath(cwd, path);
    throw new RestbusError(
      'INTERNAL',
      `cannot create ${show(dir)}: ${describeFileError(err, show)}; nothing was written`,
      {
        cause: err,
      },
    );
  }
  return { dir, port };
}
