import type { Stats } from 'node:fs';
import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isMap, type Document, type YAMLMap } from 'yaml';
import { isJsonObject, RestbusError } from '@restbus/infra';
import { isInside, listReferencedFiles, routeKey } from '@restbus/project-format';
import type { ProjectConfig } from '../project/project-config';
import { renderYamlTemplate, stringifyYaml, type RenderedYaml } from '../project/render-yaml-template';
import { parseServicePath, sameServicePath } from '../project/service-path';
import { showPath } from '../project/show-path';
import { declareUriParameters, keepMethods, keyOf } from './edit-service-document';
import { describeService } from './describe-service';
import { findTemplateDir } from './find-template-dir';
import { checkUriTemplate, type ServiceSpec, type ServiceType } from './service-spec';
import { capitalise, toIdentifier } from './to-identifier';

export interface PlannedFile {
  name: string;
  data: string | Buffer;
}

/** A service ready to be written: every check passed and every file is rendered. */
export interface PlannedService {
  spec: ServiceSpec;
  /** The services[] entry. */
  entry: string;
  /**
   * The absolute folder of its service.yml. It may exist by the time the service is written, holding only other
   * services' folders (a COLLECTION /orders added after its RESOURCE /orders/order): the files go in beside them.
   */
  dir: string;
  files: PlannedFile[];
}

export interface PlanContext {
  config: ProjectConfig;
  /** Routes already served (see readExistingRoutes); planned services add theirs. */
  routes: Map<string, string>;
  /** Entries planned before this one in the same run (add-bulk). */
  planned: string[];
  /** The files planned before this one in the same run, absolute. */
  plannedFiles: Set<string>;
  /** How the user gives a service's path, for the hints: `-p/--path` (add), `"path"` (add-bulk). */
  pathOption?: string;
}

const lstatOf = (path: string) => lstat(path).catch(() => undefined);

/** Where a service would go, and how its messages name things. */
interface Target {
  entry: string;
  /** The service's folder, absolute. */
  dir: string;
  /** What is at `dir` already, if anything. */
  found: Stats | undefined;
  show: (file: string) => string;
  /** The hint to give the service another path. */
  otherPath: string;
}

/** A service's template: its folder and the names in it (service.yml among them). */
interface Template {
  dir: string;
  names: string[];
}

/**
 * Checks one service to add and renders its files, touching nothing on disk. Returns every problem found (so that
 * add-bulk can report all of them), each prefixed with `label`.
 */
export async function planService(
  spec: ServiceSpec,
  context: PlanContext,
  label = '',
): Promise<{ planned: PlannedService } | { problems: string[] }> {
  const { config } = context;
  const problems: string[] = [];
  const problem = (...texts: string[]): void => {
    for (const text of texts) problems.push(`${label}${text}`);
  };
  problem(...checkSpec(spec));
  const path = parseServicePath(spec.path);
  if ('problem' in path) {
    problem(path.problem);
    return { problems };
  }
  const dir = join(config.servicesDir, ...path.segments);
  const target: Target = {
    entry: path.entry,
    dir,
    found: await lstatOf(dir),
    show: (file) => showPath(config.cwd, file),
    otherPath: `give the new service another ${context.pathOption ?? '-p/--path'}`,
  };
  const placeProblem = await findPlaceProblem(context, target);
  if (placeProblem) problem(placeProblem);
  if (problems.length) return { problems };

  const template = await readTemplate(config.projectDir, spec.type, label, target.show);
  const { rendered, methods } = await renderDescriptor(spec, path.entry, template, label, target.show);
  const offered = methods.items.map((pair) => keyOf(pair));
  if (spec.methods) problem(...checkMethods(spec.type, spec.methods, offered));
  if (problems.length) return { problems };
  const skipped = spec.methods
    ? keepChosenMethods(rendered.document, methods, offered, spec.methods)
    : new Set<string>();
  const served = spec.methods ?? offered;
  problem(...findServedRoutes(context.routes, served, spec.uriTemplate));
  if (problems.length) return { problems };
  declareUriParameters(rendered.document, methods, spec.uriTemplate, spec.name);

  const files = await collectFiles(rendered, template, skipped, label);
  problem(...(await findOverwrites(context.plannedFiles, target, files)));
  if (problems.length) return { problems };
  recordPlan(
    context,
    target,
    files,
    served.map((method) => routeKey(method, spec.uriTemplate)),
  );
  return { planned: { spec, entry: path.entry, dir, files } };
}

/** The problems of a spec's name and uriTemplate. */
function checkSpec(spec: ServiceSpec): string[] {
  const problems: string[] = [];
  if (!spec.name.trim()) problems.push('the name must not be empty');
  const uriProblem = checkUriTemplate(spec.uriTemplate);
  if (uriProblem) problems.push(uriProblem);
  return problems;
}

/** Why the service cannot go into its folder (listed or planned already, something in the way), if it cannot. */
async function findPlaceProblem(context: PlanContext, target: Target): Promise<string | undefined> {
  const { config } = context;
  const { entry, dir, found, show, otherPath } = target;
  const descriptor = join(dir, 'service.yml');
  if (context.config.services.some((listed) => sameServicePath(listed, entry))) {
    return (
      `${entry} is already listed in ${config.name} (${await describeService(descriptor, show)}): ` +
      `${otherPath}, or edit ${show(descriptor)} instead`
    );
  }
  if (context.planned.some((listed) => sameServicePath(listed, entry))) return `${entry} is given twice`;
  if (found && !found.isDirectory()) {
    const what = found.isSymbolicLink() ? 'is a symbolic link' : 'exists and is not a folder';
    return `${show(dir)} ${what}: ${otherPath}, or move it away first`;
  }
  if (found && (await lstatOf(descriptor))) {
    return (
      `${show(descriptor)} exists already (${await describeService(descriptor, show)}) but ${entry} is not ` +
      `listed in ${config.name}: to serve that service, add "- ${entry}" to services in ${config.name}; ` +
      `to add a new one, ${otherPath} or remove that service.yml first`
    );
  }
  return findLinkOut(config.servicesDir, dir, entry);
}

/** Whether the folder's nearest existing ancestor leads out of servicesRoot. */
async function findLinkOut(servicesDir: string, dir: string, entry: string): Promise<string | undefined> {
  // A symbolic link on the way could still lead out of servicesRoot.
  let ancestor = dir;
  while (!(await lstatOf(ancestor)) && ancestor !== dirname(ancestor)) ancestor = dirname(ancestor);
  const root = await realpath(servicesDir).catch(() => servicesDir);
  const real = await realpath(ancestor).catch(() => ancestor);
  if (!isInside(root, real) && isInside(servicesDir, ancestor)) {
    return `the path ${entry} leads out of servicesRoot through a symbolic link`;
  }
  return undefined;
}

async function readTemplate(
  projectDir: string,
  type: ServiceType,
  label: string,
  show: (file: string) => string,
): Promise<Template> {
  const dir = await findTemplateDir(projectDir, type);
  const names = await readdir(dir).catch(() => {
    throw new RestbusError('PROJECT_INVALID', `${label}the template folder ${show(dir)} cannot be read`);
  });
  if (!names.includes('service.yml')) {
    throw new RestbusError('PROJECT_INVALID', `${label}the template folder ${show(dir)} has no service.yml`);
  }
  return { dir, names };
}

/** The template's service.yml filled in with the spec's values, and its methods map. */
async function renderDescriptor(
  spec: ServiceSpec,
  entry: string,
  template: Template,
  label: string,
  show: (file: string) => string,
): Promise<{ rendered: RenderedYaml; methods: YAMLMap }> {
  const values = {
    name: spec.name,
    cName: capitalise(spec.name),
    identifier: toIdentifier(spec.name),
    description: spec.description,
    uriTemplate: spec.uriTemplate,
    type: spec.type,
    path: entry,
  };
  const rendered = renderYamlTemplate(
    await readFile(join(template.dir, 'service.yml'), 'utf8'),
    values,
    show(join(template.dir, 'service.yml')),
  );
  const methods = rendered.document.get('methods', true);
  if (!isMap(methods)) {
    throw new RestbusError('PROJECT_INVALID', `${label}${show(join(template.dir, 'service.yml'))} has no methods map`);
  }
  return { rendered, methods };
}

/** The problems of the methods a spec chooses among those its template offers. */
function checkMethods(type: ServiceType, chosen: string[], offered: string[]): string[] {
  const problems: string[] = [];
  const unknown = chosen.filter((method) => !offered.includes(method));
  if (unknown.length) {
    problems.push(`a ${type} service has no ${unknown.join(', ')} method (its template has ${offered.join(', ')})`);
  }
  if (chosen.length === 0) problems.push('methods must name at least one method');
  return problems;
}

/** Removes the methods not chosen from the descriptor; returns the template files only they refer to. */
function keepChosenMethods(document: Document, methods: YAMLMap, offered: string[], chosen: string[]): Set<string> {
  // The template's methods are a map (checked in renderDescriptor): as JS, an object.
  const all: unknown = document.toJS();
  const allMethods = isJsonObject(all) && isJsonObject(all.methods) ? all.methods : {};
  const filesOf = (names: string[]): Set<string> =>
    new Set(
      listReferencedFiles({ methods: Object.fromEntries(names.map((name) => [name, allMethods[name]])) }).map(
        (reference) => reference.file,
      ),
    );
  const kept = filesOf(chosen);
  const skipped = new Set([...filesOf(offered.filter((m) => !chosen.includes(m)))].filter((file) => !kept.has(file)));
  keepMethods(document, methods, chosen);
  return skipped;
}

/** The problems of routes another service serves already. */
function findServedRoutes(routes: Map<string, string>, methods: string[], uriTemplate: string): string[] {
  const problems: string[] = [];
  for (const method of methods) {
    const other = routes.get(routeKey(method, uriTemplate));
    if (other) problems.push(`${method} ${uriTemplate} is already served by ${other}`);
  }
  return problems;
}

/** service.yml, then the template's other files in name order, but those only left-out methods refer to. */
async function collectFiles(
  rendered: RenderedYaml,
  template: Template,
  skipped: Set<string>,
  label: string,
): Promise<PlannedFile[]> {
  const files: PlannedFile[] = [{ name: 'service.yml', data: stringifyYaml(rendered, `${label}service.yml`) }];
  for (const name of template.names.sort()) {
    if (name === 'service.yml' || skipped.has(name)) continue;
    const source = join(template.dir, name);
    if (!(await stat(source)).isFile()) continue;
    files.push({ name, data: await readFile(source) });
  }
  return files;
}

async function findOverwrites(plannedFiles: Set<string>, target: Target, files: PlannedFile[]): Promise<string[]> {
  const problems: string[] = [];
  // Into a folder that exists (or that a service planned before makes), beside what is there: never over it.
  for (const file of files) {
    const path = join(target.dir, file.name);
    if (plannedFiles.has(path) || (target.found && (await lstatOf(path)))) {
      problems.push(
        `${target.show(path)} exists already, and the new service would write it: ${target.otherPath}, or move it away first`,
      );
    }
  }
  return problems;
}

/** Claims the service's files, routes and entry, for the services planned after it in the same run. */
function recordPlan(context: PlanContext, target: Target, files: PlannedFile[], routeKeys: string[]): void {
  for (const file of files) context.plannedFiles.add(join(target.dir, file.name));
  for (const key of routeKeys) context.routes.set(key, target.entry);
  context.planned.push(target.entry);
}
