import { chmod, lstat, mkdir, readFile, readdir, rename, rm, rmdir, stat, writeFile } from 'node:fs/promises';
import { basename, dirname, extname, join, resolve } from 'node:path';
import { isScalar, isSeq, parseDocument, type Scalar } from 'yaml';
import { isJsonObject, readErrorCode, readErrorMessage, RestbusError } from '@restbus/infra';
import { checkProject } from '@restbus/mock-server/check';
import type { ServiceType } from '../add/service-spec';
import { checkProjectName, projectTemplateValues, writeProjectFiles } from '../create/create-project';
import { appendServices } from '@restbus/project-format';
import { stringifyYaml } from '../project/render-yaml-template';
import { siblingTempPath } from '@restbus/project-format';
import { describeFileError } from '../project/describe-file-error';
import { showPath } from '../project/show-path';
import { planImport, type ImportPlan } from './plan-import';
import { readImportedApi } from './read-imported-api';

export interface ImportOptions {
  cwd: string;
  /** The OpenAPI file, relative to cwd. */
  file: string;
  /** The project folder to make, relative to cwd; default: from the API's title (else the file's name). */
  folder?: string;
  /** `--style <path>=<STYLE>`: a path's service style, over `x-restbus-style` and the guess. */
  styles?: ReadonlyMap<string, ServiceType>;
  verbose?: (line: string) => void;
}

export interface ImportResult {
  dir: string;
  /** The folder as given or chosen, relative to cwd (for `cd`). */
  folder: string;
  plan: ImportPlan;
  /** What could not be imported, and what the mock server says of the project. */
  warnings: string[];
}

/** A folder name from a title: `Swagger Petstore` → `swagger-petstore`. */
const toFolderName = (text: string): string =>
  text
    .toLowerCase()
    .replace(/[^a-z0-9._-]+/g, '-')
    .replace(/^[-._]+|[-._]+$/g, '')
    .slice(0, 100);

type Target = 'absent' | 'empty';

async function checkTarget(dir: string, show: (path: string) => string): Promise<Target> {
  const info = await lstat(dir).catch(() => undefined);
  if (!info) {
    const parent = await stat(dirname(dir)).catch(() => undefined);
    if (!parent?.isDirectory()) {
      throw new RestbusError('BAD_REQUEST', `the folder ${show(dirname(dir))} does not exist; nothing was written`);
    }
    return 'absent';
  }
  if (!info.isDirectory()) {
    throw new RestbusError('BAD_REQUEST', `${show(dir)} exists and is not a folder; nothing was written`);
  }
  if ((await readdir(dir)).length > 0) {
    throw new RestbusError('BAD_REQUEST', `${show(dir)} exists and is not empty; nothing was written`);
  }
  return 'empty';
}

/** Sets a top-level scalar of config.yml in place (its comments stay), for stringifyYaml to quote as needed. */
function setScalar(document: ReturnType<typeof parseDocument>, key: string, value: string, filled: Scalar[]): void {
  const node = document.get(key, true);
  if (!isScalar(node)) throw new Error(`config.yml has no ${key}`);
  node.value = value;
  node.type = undefined;
  filled.push(node);
}

/**
 * config.yml of the new project, as `rest-tool create` wrote it, with the API's version, its server's path as
 * serviceUrlPrefix (and in baseUrl) and the services listed; comments and layout stay.
 */
function editConfig(text: string, plan: ImportPlan): string {
  const document = parseDocument(text);
  const filled: Scalar[] = [];
  setScalar(document, 'apiVersion', plan.apiVersion, filled);
  setScalar(document, 'serviceUrlPrefix', plan.serviceUrlPrefix, filled);
  const config: unknown = document.toJS();
  const port = (isJsonObject(config) ? config.servicePort : undefined) ?? 3007;
  setScalar(document, 'baseUrl', `http://localhost:${String(port)}${plan.serviceUrlPrefix}`, filled);
  const entries = plan.services.map((service) => service.entry);
  const list = document.get('services', true);
  const first = isSeq(list) ? list.items[0] : undefined;
  if (plan.replacesMonitoring && entries.length && isScalar(first)) {
    // The monitoring service makes way: its line lists the first imported service.
    first.value = entries.shift();
    filled.push(first);
  }
  return appendServices(stringifyYaml({ document, filled }, 'config.yml'), entries);
}

/** Writes the services into `staging`; `shown` is the project folder as messages name it. */
async function writeServices(staging: string, shown: string, plan: ImportPlan, verbose: (line: string) => void) {
  const servicesDir = join(staging, 'services');
  if (plan.replacesMonitoring) {
    await rm(join(servicesDir, 'monitoring'), { recursive: true, force: true });
    verbose(`removed ${join(shown, 'services', 'monitoring')}/ (the API describes GET /monitoring/isAlive itself)`);
  }
  for (const service of plan.services) {
    const folder = join(servicesDir, ...service.segments);
    await mkdir(folder, { recursive: true });
    for (const file of service.files) {
      // `wx`: a name given twice would fail here rather than replace a file.
      await writeFile(join(folder, file.name), file.data, { flag: 'wx' });
      verbose(`wrote ${join(shown, 'services', ...service.segments, file.name)}`);
    }
  }
  const configFile = join(staging, 'config.yml');
  await writeFile(configFile, editConfig(await readFile(configFile, 'utf8'), plan));
  verbose(`listed ${plan.services.length} services in ${join(shown, 'config.yml')}`);
}

/** Moves the finished project into place: a new folder, or over an empty one (whose permissions it takes). */
async function moveIntoPlace(staging: string, dir: string, target: Target): Promise<void> {
  if (target === 'empty') {
    await chmod(staging, (await stat(dir)).mode & 0o7777);
    try {
      // POSIX rename replaces an empty folder, and fails on one that is not empty any more.
      await rename(staging, dir);
      return;
    } catch (err) {
      const code = readErrorCode(err);
      if (code !== 'EPERM' && code !== 'EEXIST' && code !== 'EACCES') throw err;
      // Windows does not rename over a folder: remove it (rmdir fails when something arrived in it meanwhile).
      await rmdir(dir);
    }
  }
  await rename(staging, dir);
}

/**
 * `rest-tool import-oas`: a project folder from a Swagger 2.0 or OpenAPI 3.0/3.1 file. The file is read and
 * validated, the project planned whole (see planImport), then written as `rest-tool create` writes one (its
 * templates, the monitoring service, server/) into a hidden folder beside the target, with the services; the
 * result is checked as `rest-tool validate` checks it, and renamed into place. A failure leaves nothing behind, and
 * an existing file is never replaced: the target must be absent or an empty folder.
 */
export async function importOpenApi(options: ImportOptions): Promise<ImportResult> {
  const cwd = resolve(options.cwd);
  const show = (path: string): string => showPath(cwd, path);
  const { api, warnings: readWarnings } = await readImportedApi(resolve(cwd, options.file), options.file, show);
  const plan = planImport(api, { shown: options.file, styles: options.styles });
  const folder =
    options.folder ??
    (toFolderName(plan.projectName) || toFolderName(basename(options.file, extname(options.file))) || 'api');
  const problem = checkProjectName(cwd, folder);
  if (problem) throw new RestbusError('BAD_REQUEST', `${problem}; nothing was written`);
  const dir = resolve(cwd, folder);
  const target = await checkTarget(dir, show);
  const verbose = options.verbose ?? (() => undefined);

  const staging = siblingTempPath(dir);
  await mkdir(staging);
  const warnings = [...readWarnings, ...plan.warnings];
  try {
    await writeProjectFiles(staging, show(dir), projectTemplateValues(plan.projectName, plan.apiVersion), verbose);
    await writeServices(staging, show(dir), plan, verbose);
    let check: Awaited<ReturnType<typeof checkProject>>;
    try {
      // As `rest-tool validate` checks it, and every request schema compiled as `restbus-mock --validate` needs.
      check = await checkProject({ projectDir: staging, validate: true });
    } catch (err) {
      const lines = readErrorMessage(err)
        .split('\n')
        .filter((line) => !line.startsWith('warning: '));
      throw new RestbusError(
        'INTERNAL',
        `the imported project does not pass rest-tool validate (please report this): ${lines.slice(0, 5).join('; ')}`,
        { cause: err },
      );
    }
    warnings.push(...check.warnings);
    await moveIntoPlace(staging, dir, target);
  } catch (err) {
    await rm(staging, { recursive: true, force: true });
    if (err instanceof RestbusError) {
      throw err.message.endsWith('nothing was written')
        ? err
        : new RestbusError(err.code, `${err.message}; nothing was written`, { cause: err });
    }
    throw new RestbusError(
      'INTERNAL',
      `cannot write ${show(dir)}: ${describeFileError(err, show)}; nothing was written`,
      {
        cause: err,
      },
    );
  }
  return { dir, folder, plan, warnings };
}
