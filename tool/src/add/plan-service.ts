import { lstat, readdir, readFile, realpath, stat } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import {
  Alias,
  isMap,
  isNode,
  isScalar,
  isSeq,
  visit,
  type Pair,
  type Document,
  type Node,
  type YAMLMap,
  type YAMLSeq,
} from 'yaml';
import { RestbusError } from '@restbus/infra';
import { isInside, toolTemplatesDir } from '../project/paths';
import type { ProjectConfig } from '../project/project-config';
import { renderYamlTemplate, stringifyYaml } from '../project/render-yaml-template';
import { parseServicePath, sameServicePath } from '../project/service-path';
import { routeKey } from '@restbus/mock-server';
import { checkUriTemplate, uriParameters, type ServiceSpec } from './service-spec';

export interface PlannedFile {
  name: string;
  data: string | Buffer;
}

/** A service ready to be written: every check passed and every file is rendered. */
export interface PlannedService {
  spec: ServiceSpec;
  /** The services[] entry. */
  entry: string;
  /** The absolute folder to create. */
  dir: string;
  files: PlannedFile[];
}

export interface PlanContext {
  config: ProjectConfig;
  /** Routes already served (see readExistingRoutes); planned services add theirs. */
  routes: Map<string, string>;
  /** Entries planned before this one in the same run (add-bulk). */
  planned: string[];
}

const exists = (path: string): Promise<boolean> =>
  lstat(path).then(
    () => true,
    () => false,
  );

/** The project's own template folder for a type when it has one (a project may customise them), else the tool's. */
async function findTemplateDir(projectDir: string, type: string): Promise<string> {
  const own = join(projectDir, 'templates', 'services', type);
  const isDir = await stat(own).then(
    (info) => info.isDirectory(),
    () => false,
  );
  return isDir ? own : join(toolTemplatesDir, 'services', type);
}

/** Upstream's `cName`: the name with its first letter upper-cased. */
const capitalise = (text: string): string => text.charAt(0).toUpperCase() + text.slice(1);

/** A name usable in a JavaScript identifier, for the suggested `implementation: api.get<Identifier>`. */
function toIdentifier(name: string): string {
  const words = name.split(/[^\p{L}\p{N}_$]+/u).filter(Boolean);
  const identifier = words.map(capitalise).join('');
  return /^[\p{L}_$]/u.test(identifier) ? identifier : `Service${identifier}`;
}

/** The key of a map entry as text (`GET`). */
const keyOf = (pair: Pair): string => String(isScalar(pair.key) ? pair.key.value : pair.key);

/** The file names a subtree refers to (mock bodies, schemas), to leave out the files of removed methods. */
function referencedFiles(value: unknown, into = new Set<string>()): Set<string> {
  if (Array.isArray(value)) value.forEach((item) => referencedFiles(item, into));
  else if (value && typeof value === 'object') {
    for (const [key, item] of Object.entries(value)) {
      if (['mockBody', 'validationSchema', 'body'].includes(key) && typeof item === 'string') into.add(item);
      else referencedFiles(item, into);
    }
  }
  return into;
}

/**
 * Removes the methods not asked for. An anchor (`&OkStatusCode`) defined in a removed method moves to its first
 * alias in a kept one, so the aliases keep resolving.
 */
function keepMethods(document: Document, methods: YAMLMap, keep: string[]): void {
  const removed = new Set<Node>();
  for (const pair of methods.items) {
    if (keep.includes(keyOf(pair))) continue;
    if (isNode(pair.value)) {
      visit(pair.value, (_key, node) => {
        if (isNode(node)) removed.add(node);
      });
    }
  }
  const rehomed = new Set<Node>();
  for (const pair of methods.items) {
    if (!keep.includes(keyOf(pair)) || !isNode(pair.value)) continue;
    visit(pair.value, {
      Alias(_key, alias: Alias) {
        const source = alias.resolve(document);
        if (!source || !removed.has(source) || rehomed.has(source)) return undefined;
        rehomed.add(source);
        return source.clone() as Node;
      },
    });
  }
  methods.items = methods.items.filter((pair) => keep.includes(keyOf(pair)));
}

/** Declares every `{name}` of the uriTemplate as a URL parameter of each method, so docs and tests can fill it in. */
function declareUriParameters(document: Document, methods: YAMLMap, uriTemplate: string, name: string): void {
  for (const pair of methods.items) {
    if (!isMap(pair.value)) continue;
    const method = pair.value;
    for (const parameter of uriParameters(uriTemplate)) {
      let request: unknown = method.get('request', true);
      if (!isMap(request)) {
        request = document.createNode({});
        method.set('request', request);
      }
      const requestMap = request as YAMLMap;
      let list: unknown = requestMap.get('parameters', true);
      if (!isSeq(list)) {
        list = document.createNode([]);
        requestMap.set('parameters', list);
      }
      const parameters = list as YAMLSeq;
      const declared = parameters.items.find((item) => isMap(item) && item.get('name') === parameter);
      if (declared) {
        // Named in the uriTemplate, it is part of the path (upstream's RESOURCE template declares `id` as QUERY).
        (declared as YAMLMap).set('kind', 'URL');
        continue;
      }
      parameters.flow = false;
      parameters.items.push(
        document.createNode({
          name: parameter,
          kind: 'URL',
          required: true,
          type: 'string',
          summary: `The ${parameter} of the ${name}`,
          default: '1',
        }),
      );
    }
  }
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
  if (context.config.services.some((listed) => sameServicePath(listed, path.entry))) {
    problem(`${path.entry} is already listed in ${config.name}`);
  } else if (context.planned.some((listed) => sameServicePath(listed, path.entry))) {
    problem(`${path.entry} is given twice`);
  } else if (await exists(dir)) {
    problem(`the folder ${join(config.servicesDir, ...path.segments)} exists already`);
  } else {
    // A symbolic link on the way could still lead out of servicesRoot.
    let ancestor = dirname(dir);
    while (!(await exists(ancestor)) && ancestor !== dirname(ancestor)) ancestor = dirname(ancestor);
    const root = await realpath(config.servicesDir).catch(() => config.servicesDir);
    const real = await realpath(ancestor).catch(() => ancestor);
    if (!isInside(root, real) && isInside(config.servicesDir, ancestor)) {
      problem(`the path ${path.entry} leads out of servicesRoot through a symbolic link`);
    }
  }
  if (problems.length) return { problems };

  const templateDir = await findTemplateDir(config.projectDir, spec.type);
  const names = await readdir(templateDir).catch(() => {
    throw new RestbusError('PROJECT_INVALID', `${label}the template folder ${templateDir} cannot be read`);
  });
  if (!names.includes('service.yml')) {
    throw new RestbusError('PROJECT_INVALID', `${label}the template folder ${templateDir} has no service.yml`);
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
    join(templateDir, 'service.yml'),
  );
  const methods = rendered.document.get('methods', true);
  if (!isMap(methods)) {
    throw new RestbusError('PROJECT_INVALID', `${label}${join(templateDir, 'service.yml')} has no methods map`);
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
    const all = rendered.document.toJS() as { methods: Record<string, unknown> };
    const kept = referencedFiles(spec.methods.map((method) => all.methods[method]));
    skipped = new Set(
      [...referencedFiles(offered.filter((m) => !spec.methods?.includes(m)).map((m) => all.methods[m]))].filter(
        (file) => !kept.has(file),
      ),
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
  for (const method of spec.methods ?? offered) context.routes.set(routeKey(method, spec.uriTemplate), path.entry);
  context.planned.push(path.entry);
  return { planned: { spec, entry: path.entry, dir, files } };
}
