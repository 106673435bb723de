import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import { isMap } from 'yaml';
import { isJsonObject, RestbusError } from '@restbus/infra';
import { isInside, listReferencedFiles, routeKey } from '@restbus/project-format';
import type { ProjectConfig } from '../project/project-config';
import { renderYamlTemplate, stringifyYaml } from '../project/render-yaml-template';
import { parseServicePath, sameServicePath } from '../project/service-path';
import { showPath } from '../project/show-path';
import { declareUriParameters, keepMethods, keyOf } from './edit-service-document';
import { describeService } from './describe-service';
import { findTemplateDir } from './find-template-dir';
import { checkUriTemplate, type ServiceSpec } from './service-spec';
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
  const problem = (text: string): void => {
    problems.push(`${label}${text}`);
  };
  if (!spec.name.trim()) problem('the name must not be empty');
  const uriProblem = checkUriTemplate(spec.uriTemplate);
  if (uriProblem) problem(uriProblem);
  const path = parseServicePath(spec.path);
  if ('problem' in path) {
    problem(path.problem);
    return { problems };
  }
  const dir = join(config.servicesDir, ...path.segments);
  const show = (file: string): string => showPath(config.cwd, file);
  const otherPath = `give the new service another ${context.pathOption ?? '-p/--path'}`;
  const descriptor = join(dir, 'service.yml');
  const found = await lstatOf(dir);
  if (context.config.services.some((listed) => sameServicePath(listed, path.entry))) {
    problem(
      `${path.entry} is already listed in ${config.name} (${await describeService(descriptor, show)}): ` +
        `${otherPath}, or edit ${show(descriptor)} instead`,
    );
  } else if (context.planned.some((listed) => sameServicePath(listed, path.entry))) {
    problem(`${path.entry} is given twice`);
  } else if (found && !found.isDirectory()) {
    const what = found.isSymbolicLink() ? 'is a symbolic link' : 'exists and is not a folder';
    problem(`${show(dir)} ${what}: ${otherPath}, or move it away first`);
  } else if (found && (await lstatOf(descriptor))) {
    problem(
      `${show(descriptor)} exists already (${await describeService(descriptor, show)}) but ${path.entry} is not ` +
        `listed in ${config.name}: to serve that service, add "- ${path.entry}" to services in ${config.name}; ` +
        `to add a new one, ${otherPath} or remove that service.yml first`,
    );
  } else {
    // A symbolic link on the way could still lead out of servicesRoot.
    let ancestor = dir;
    while (!(await lstatOf(ancestor)) && ancestor !== dirname(ancestor)) ancestor = dirname(ancestor);
    const root = await realpath(config.servicesDir).catch(() => config.servicesDir);
    const real = await realpath(ancestor).catch(() => ancestor);
    if (!isInside(root, real) && isInside(config.servicesDir, ancestor)) {
      problem(`the path ${path.entry} leads out of servicesRoot through a symbolic link`);
    }
  }
  if (problems.length) return { problems };

  const templateDir = await findTemplateDir(config.projectDir, spec.type);
  const names = await readdir(templateDir).catch(() => {
    throw new RestbusError('PROJECT_INVALID', `${label}the template folder ${show(templateDir)} cannot be read`);
  });
  if (!names.includes('service.yml')) {
    throw new RestbusError('PROJECT_INVALID', `${label}the template folder ${show(templateDir)} has no service.yml`);
  }
  const values = {
    name: spec.name,
    cName: capitalise(spec.name),
    identifier: toIdentifier(spec.name),
    description: spec.description,
    uriTemplate: spec.uriTemplate,
    type: spec.type,
    path: path.entry,
  };
  const rendered = renderYamlTemplate(
    await readFile(join(templateDir, 'service.yml'), 'utf8'),
    values,
    show(join(templateDir, 'service.yml')),
  );
  const methods = rendered.document.get('methods', true);
  if (!isMap(methods)) {
    throw new RestbusError('PROJECT_INVALID', `${label}${show(join(templateDir, 'service.yml'))} has no methods map`);
  }
  const offered = methods.items.map((pair) => keyOf(pair));
  let skipped = new Set<string>();
  if (spec.methods) {
    const unknown = spec.methods.filter((method) => !offered.includes(method));
    if (unknown.length) {
      problem(`a ${spec.type} service has no ${unknown.join(', ')} method (its template has ${offered.join(', ')})`);
    }
    if (spec.methods.length === 0) problem('methods must name at least one method');
    if (problems.length) return { problems };
    // The template's methods are a map (checked above): as JS, an object.
    const all: unknown = rendered.document.toJS();
    const allMethods = isJsonObject(all) && isJsonObject(all.methods) ? all.methods : {};
    const filesOf = (names: string[]): Set<string> =>
      new Set(
        listReferencedFiles({ methods: Object.fromEntries(names.map((name) => [name, allMethods[name]])) }).map(
          (reference) => reference.file,
        ),
      );
    const kept = filesOf(spec.methods);
    skipped = new Set(
      [...filesOf(offered.filter((m) => !spec.methods?.includes(m)))].filter((file) => !kept.has(file)),
    );
    keepMethods(rendered.document, methods, spec.methods);
  }
  for (const method of spec.methods ?? offered) {
    const key = routeKey(method, spec.uriTemplate);
    const other = context.routes.get(key);
    if (other) problem(`${method} ${spec.uriTemplate} is already served by ${other}`);
  }
  if (problems.length) return { problems };
  declareUriParameters(rendered.document, methods, spec.uriTemplate, spec.name);

  const files: PlannedFile[] = [{ name: 'service.yml', data: stringifyYaml(rendered, `${label}service.yml`) }];
  for (const name of names.sort()) {
    if (name === 'service.yml' || skipped.has(name)) continue;
    const source = join(templateDir, name);
    if (!(await stat(source)).isFile()) continue;
    files.push({ name, data: await readFile(source) });
  }
  // Into a folder that exists (or that a service planned before makes), beside what is there: never over it.
  const { plannedFiles } = context;
  for (const file of files) {
    const target = join(dir, file.name);
    if (plannedFiles.has(target) || (found && (await lstatOf(target)))) {
      problem(
        `${show(target)} exists already, and the new service would write it: ${otherPath}, or move it away first`,
      );
    }
  }
  if (problems.length) return { problems };
  for (const file of files) plannedFiles.add(join(dir, file.name));
  for (const method of spec.methods ?? offered) context.routes.set(routeKey(method, spec.uriTemplate), path.entry);
  context.planned.push(path.entry);
  return { planned: { spec, entry: path.entry, dir, files } };
}
