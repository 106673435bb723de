import { basename } from 'node:path';
import { isDeepStrictEqual } from 'node:util';
import { Document, parse } from 'yaml';
import { isJsonObject, RestbusError, type JsonObject } from '@restbus/infra';
import type { ApiModel, ApiOperation, Dialect } from '@restbus/openapi';
import { findUriTemplateProblem, routeKey } from '@restbus/project-format';
import type { ServiceType } from '../add/service-spec';
import { capitalise } from '../add/to-identifier';
import { pickJson } from './map-bodies';
import { typeOf } from './map-parameters';
import type { ImportCounts, MappingContext } from './mapping-context';
import { guessStyle, parseStyle, toServiceFolder } from './name-services';
import { planMethod, type Method } from './plan-method';
import { createRefs, type Refs } from './refs';

export type { ImportCounts } from './mapping-context';

/** The methods the project format holds; OpenAPI's others are reported and left out. */
const METHODS: readonly Method[] = ['GET', 'PUT', 'POST', 'DELETE'];
const OTHER_METHODS = ['PATCH', 'OPTIONS', 'HEAD', 'TRACE', 'QUERY'];

/** The monitoring service every project made by `rest-tool create` has. */
const MONITORING_ENTRY = '/monitoring/isAlive';
const MONITORING_ROUTE = routeKey('GET', MONITORING_ENTRY);

export interface PlannedFile {
  name: string;
  data: string;
}

export interface PlannedService {
  /** The services[] entry, `/pets/pet`. */
  entry: string;
  segments: string[];
  /** The OpenAPI path, the service's uriTemplate. */
  path: string;
  style: ServiceType;
  methods: Method[];
  /** service.yml first, then the mock and schema files beside it. */
  files: PlannedFile[];
}

export interface ImportPlan {
  projectName: string;
  apiVersion: string;
  serviceUrlPrefix: string;
  /** `OpenAPI 3.0.3`, `Swagger 2.0`. */
  version: string;
  services: PlannedService[];
  /** The document describes GET /monitoring/isAlive itself: the project's own monitoring service makes way. */
  replacesMonitoring: boolean;
  warnings: string[];
  counts: ImportCounts;
}

/** An API description as the import reads it (see readImportedApi). */
export interface OpenApiFile {
  /** Its typed model: what the plan reads where the model says enough. */
  model: ApiModel;
  /** The dereferenced document: only a cycle's `$ref`s are left, local pointers into it. */
  document: JsonObject;
  dialect: Dialect;
  /** `Swagger 2.0`, `OpenAPI 3.0.3`…: for messages. */
  version: string;
}

export interface PlanOptions {
  /** The file as messages name it. */
  shown: string;
  /** `--style <path>=<STYLE>`: the style of a path's service, over `x-restbus-style` and the guess. */
  styles?: ReadonlyMap<string, ServiceType>;
}

const toJsonText = (value: unknown): string => `${JSON.stringify(value, null, 2)}\n`;

/** The path of the first server (`https://host/v1` → `/v1`, variables at their defaults), or "" when none. */
function serverPrefix(document: JsonObject, dialect: Dialect, warn: (text: string) => void): string {
  if (dialect === '2.0') return typeof document.basePath === 'string' ? document.basePath.replace(/\/+$/, '') : '';
  const servers = Array.isArray(document.servers) ? document.servers.filter(isJsonObject) : [];
  const paths = servers.map((server) => {
    const variables = isJsonObject(server.variables) ? server.variables : {};
    const url = String(server.url ?? '/').replace(/\{([^}]*)\}/g, (whole, name: string) => {
      const variable = variables[name];
      return isJsonObject(variable) && variable.default !== undefined ? String(variable.default) : whole;
    });
    try {
      return decodeURI(new URL(url, 'http://relative.invalid').pathname.replace(/\/+$/, ''));
    } catch {
      return undefined;
    }
  });
  const [first] = paths;
  if (first === undefined && servers.length) {
    warn(`servers[0].url ${JSON.stringify(servers[0].url)} is not a URL: serviceUrlPrefix is ""`);
    return '';
  }
  if (new Set(paths).size > 1) {
    warn(`the servers have different paths: serviceUrlPrefix is the first one's, ${JSON.stringify(first ?? '')}`);
  }
  return first ?? '';
}

/** Whether a GET answers a list (its successful JSON answer's schema is an array): a hint of a collection. */
function listsItems(get: ApiOperation | undefined): boolean {
  const success = get?.responses
    .filter(({ status }) => /^2\d\d$/.test(status))
    .sort((a, b) => a.status.localeCompare(b.status))[0];
  if (!success) return false;
  // Swagger 2's one schema is under each type produced (JSON when none); OpenAPI 3's JSON one is the hint.
  const { json } = pickJson(Object.keys(success.content));
  return typeOf(json ? success.content[json].schema : undefined) === 'array';
}

/** A descriptor as YAML under a comment, proven to read back as the same data. */
function renderServiceFile(comment: string, data: JsonObject): string {
  const document = new Document(data, { aliasDuplicateObjects: false });
  document.commentBefore = comment.replace(/[\r\n]+/g, ' ');
  const text = document.toString({ lineWidth: 0 });
  if (!isDeepStrictEqual(parse(text), JSON.parse(JSON.stringify(data)))) {
    throw new RestbusError('INTERNAL', `the service.yml of ${String(data.uriTemplate)} does not read back`);
  }
  return text;
}

/** The operations of a path item the project can hold, each route once; the others are reported. */
function listOperations(context: MappingContext, path: string, item: JsonObject, routes: Map<string, string>) {
  for (const method of OTHER_METHODS) {
    if (isJsonObject(item[method.toLowerCase()])) {
      context.warn(`${method} ${path} left out: the project format has GET, PUT, POST and DELETE only`);
    }
  }
  const operations: Array<[Method, JsonObject]> = [];
  for (const method of METHODS) {
    const operation = item[method.toLowerCase()];
    if (!isJsonObject(operation)) continue;
    // The mock server matches paths ignoring case and parameter names: `/Pets` would shadow `/pets`.
    const other = routes.get(routeKey(method, path));
    if (other) {
      context.warn(`${method} ${path} left out: the mock server would serve it as ${method} ${other}`);
      continue;
    }
    routes.set(routeKey(method, path), path);
    operations.push([method, operation]);
  }
  return operations;
}

/** What planning each path's service reads, and the names and routes it takes for the paths after it. */
interface ImportRun {
  api: OpenApiFile;
  context: MappingContext;
  styles: ReadonlyMap<string, ServiceType>;
  /** Service folders taken (compared ignoring case, for file systems that do). */
  entries: Set<string>;
  /** The routes taken, see listOperations. */
  routes: Map<string, string>;
  /** The document's file name, for the descriptions and comments. */
  fileName: string;
}

/**
 * Plans a project of an OpenAPI document (already read and validated): a service per path (its folder and style
 * guessed from the path, see name-services), its methods (see planMethod), with mock and schema files. Nothing is
 * written here; what the project format cannot hold is left out, with a warning each.
 */
export function planImport(api: OpenApiFile, options: PlanOptions): ImportPlan {
  const { document, dialect } = api;
  const { shown } = options;
  const refs: Refs = createRefs(document, shown);
  const warnings: string[] = [];
  const counts: ImportCounts = { methods: 0, parameters: 0, responses: 0, mockFiles: 0, schemaFiles: 0, testCases: 0 };
  const context: MappingContext = {
    document,
    dialect,
    refs,
    counts,
    warn: (text) => {
      warnings.push(`${shown}: ${text}`);
    },
  };
  const paths = isJsonObject(document.paths) ? document.paths : {};
  const styles = new Map(options.styles ?? []);
  checkStyledPaths(styles, paths, shown);

  const items = Object.entries(paths)
    .map(([path, raw]) => [path, refs.follow(raw)] as const)
    .filter((entry): entry is readonly [string, JsonObject] => isJsonObject(entry[1]));
  const replacesMonitoring = items.some(
    ([path, item]) => isJsonObject(item.get) && routeKey('GET', path) === MONITORING_ROUTE,
  );
  // Service folders taken (compared ignoring case, for file systems that do).
  const entries = new Set<string>();
  if (replacesMonitoring) {
    context.warn(`GET ${MONITORING_ENTRY} is described here: it replaces the monitoring service rest-tool create adds`);
  } else entries.add(MONITORING_ENTRY.toLowerCase());

  const run: ImportRun = { api, context, styles, entries, routes: new Map(), fileName: basename(shown) };
  const services: PlannedService[] = [];
  for (const [path, item] of items) {
    const service = planPathService(run, path, item);
    if (service) services.push(service);
  }

  if (services.length === 0)
    context.warn('no operation the project format can hold: the project has no services of it');
  return {
    projectName: api.model.title.trim() ? api.model.title : 'api',
    apiVersion: api.model.version || 'v0.0.0',
    serviceUrlPrefix: serverPrefix(document, dialect, context.warn),
    version: api.version,
    services,
    replacesMonitoring,
    warnings,
    counts,
  };
}

/** Refuses a `--style` for a path the document does not have. */
function checkStyledPaths(styles: ReadonlyMap<string, ServiceType>, paths: JsonObject, shown: string): void {
  for (const path of styles.keys()) {
    if (!Object.hasOwn(paths, path)) {
      throw new RestbusError('BAD_REQUEST', `--style ${path}: ${shown} has no path ${path}; nothing was written`);
    }
  }
}

/** The service of one path item, or undefined (with a warning) when the project cannot hold any of it. */
function planPathService(run: ImportRun, path: string, item: JsonObject): PlannedService | undefined {
  if (!checkPath(run.context, path)) return undefined;
  const operations = listOperations(run.context, path, item, run.routes);
  if (operations.length === 0) return undefined;
  const methodNames = operations.map(([method]) => method);
  const style = chooseStyle(run, path, item, methodNames);

  const folder = toServiceFolder(path);
  const segments = claimFolder(run.entries, folder);
  const { files, addJsonFile } = createFileList();
  const methods: Record<string, JsonObject> = {};
  for (const [method] of operations) {
    const model = run.api.model.operations.find(
      (candidate) => candidate.method === method.toLowerCase() && candidate.path === path,
    );
    // The model has every operation of the document: one missing is a bug here, not a problem of the file.
    if (!model) throw new Error(`the model of ${path} has no ${method}`);
    methods[method] = planMethod(run.context, { method, path, model, style, addJsonFile });
  }
  const name = folder[folder.length - 1];
  files.unshift({ name: 'service.yml', data: renderDescriptor(run, { path, item, style, name, methods }) });
  return { entry: `/${segments.join('/')}`, segments, path, style, methods: methodNames, files };
}

/** Whether a path can be a uriTemplate; warns when not. */
function checkPath(context: MappingContext, path: string): boolean {
  // eslint-disable-next-line no-control-regex
  if (!path.startsWith('/') || /[\s?#\u0000-\u001f\u007f]/.test(path)) {
    context.warn(`the path ${JSON.stringify(path)} cannot be a uriTemplate (blanks, "?" or "#"); left out`);
    return false;
  }
  const problem = findUriTemplateProblem(path);
  if (problem) {
    context.warn(`the path ${path} left out: ${problem}`);
    return false;
  }
  return true;
}

/** `--style` first, then `x-restbus-style`, then the guess from the path and its methods. */
function chooseStyle(run: ImportRun, path: string, item: JsonObject, methods: Method[]): ServiceType {
  const extension = item['x-restbus-style'];
  const declared = parseStyle(extension);
  if (extension !== undefined && !declared) {
    run.context.warn(
      `${path}: x-restbus-style ${JSON.stringify(extension)} is not OPERATION, COLLECTION or RESOURCE; ignored`,
    );
  }
  return (
    run.styles.get(path) ??
    declared ??
    guessStyle({
      path,
      methods,
      listsItems: listsItems(
        run.api.model.operations.find((operation) => operation.method === 'get' && operation.path === path),
      ),
    })
  );
}

/** The folder's segments, its last one numbered (`pet-2`) when taken already; takes it. */
function claimFolder(entries: Set<string>, folder: string[]): string[] {
  let segments = folder;
  const last = folder[folder.length - 1];
  for (let n = 2; entries.has(`/${segments.join('/')}`.toLowerCase()); n++) {
    segments = [...segments.slice(0, -1), `${last}-${n}`];
  }
  entries.add(`/${segments.join('/')}`.toLowerCase());
  return segments;
}

/** A service's files, and how its methods add JSON files to them, each name once (compared ignoring case). */
function createFileList(): { files: PlannedFile[]; addJsonFile: (name: string, value: unknown) => string } {
  const files: PlannedFile[] = [];
  const fileNames = new Set<string>();
  const addJsonFile = (name: string, value: unknown): string => {
    let unique = name;
    for (let n = 2; fileNames.has(unique.toLowerCase()); n++) unique = name.replace(/\.json$/, `-${n}.json`);
    fileNames.add(unique.toLowerCase());
    files.push({ name: unique, data: toJsonText(value) });
    return unique;
  };
  return { files, addJsonFile };
}

/** The service.yml of a path's service: named after its summary, or else its folder's last segment. */
function renderDescriptor(
  run: ImportRun,
  service: { path: string; item: JsonObject; style: ServiceType; name: string; methods: Record<string, JsonObject> },
): string {
  const { path, item, style, methods } = service;
  const { fileName } = run;
  const summary = typeof item.summary === 'string' && item.summary.trim() ? item.summary : undefined;
  const descriptor: JsonObject = {
    name: summary ?? capitalise(service.name),
    description:
      (typeof item.description === 'string' && item.description) || summary || `${path}, imported from ${fileName}`,
    style,
    uriTemplate: path,
    methods,
  };
  const comment = ` ${style === 'OPERATION' ? 'An' : 'A'} ${style} service, imported by rest-tool import-oas from ${fileName} (${run.api.version}): ${path}. Edit freely.`;
  return renderServiceFile(comment, descriptor);
}
