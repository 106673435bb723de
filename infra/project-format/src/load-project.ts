import { join, resolve } from 'node:path';
import { isJsonObject, RestbusError } from '@restbus/infra';
import { assertProjectFolder } from './assert-project-folder';
import { createSchemaReader, type SchemaReading } from './create-schema-check';
import { readYamlFile } from './read-yaml-file';
import { routeKey } from './route-key';
import { readLegacyProxy } from './read-legacy-proxy';
import { findUriTemplateProblem } from './compile-uri-template';
import { projectConfigSchema, serverConfigSchema, serviceSchema } from './schemas';
import type { EnvironmentSettings, ProjectConfig, ServerConfig, ServiceDocument } from './types';

/** The selected environment: `default` merged with it, its folders resolved to absolute paths. */
export type Environment = EnvironmentSettings & {
  name: string;
  /** Absolute folders served as static content, in order. */
  documentRoots: string[];
  /** The project root, absolute. */
  restapiRoot: string;
  remoteServices: NonNullable<EnvironmentSettings['remoteServices']>;
  proxyException: NonNullable<EnvironmentSettings['proxyException']>;
};

export interface ServiceDescriptor {
  /** The `services[]` entry, e.g. `/monitoring/isAlive`. */
  path: string;
  /** The descriptor file relative to the project. */
  file: string;
  /** The whole descriptor, `urlPattern` folded into `uriTemplate`. */
  descriptor: ServiceDocument;
  /** The line of a JSON pointer in the descriptor file, for messages about it. */
  lineOf(pointer: string): number;
}

export interface Project {
  root: string;
  environment: Environment;
  config: ProjectConfig;
  services: ServiceDescriptor[];
  warnings: string[];
}

/** What all of a project's YAML may become once aliases are expanded: a hot reload holds two versions at once. */
export const MAX_PROJECT_EXPANDED_BYTES = 64 * 1024 * 1024;

/** The service that first took a route: its file, the line of its uriTemplate, the template as written. */
interface RouteOwner {
  file: string;
  line: number;
  uriTemplate: string;
}

const readServer = createSchemaReader(serverConfigSchema);
const readConfig = createSchemaReader(projectConfigSchema);
const readService = createSchemaReader(serviceSchema);

const problemsOf = <T>(reading: SchemaReading<T>): string[] =>
  reading.ok ? [] : reading.problems.map((problem) => problem.text);

function selectEnvironment(
  server: ServerConfig,
  requested: string | undefined,
  serverDir: string,
): Environment | string {
  const { environments } = server;
  const name = requested ?? server.useEnvironment ?? 'default';
  // Own keys only: `__proto__` or `constructor` must not find Object.prototype's members. Looked up by any name,
  // `default` too, through the schema's additionalProperties: the type derived from `required` alone leaves it unknown.
  const named = (key: string): EnvironmentSettings | undefined =>
    Object.hasOwn(environments, key) ? environments[key] : undefined;
  const selected = named(name);
  if (typeof selected !== 'object' || selected === null) {
    return `server/config.yml: unknown environment "${name}"; known: ${Object.keys(environments).join(', ')}`;
  }
  // default + the selected one, on copies: neither object is changed (upstream leaked values between them).
  const merged: EnvironmentSettings = { ...structuredClone(named('default')), ...structuredClone(selected) };
  const roots = typeof merged.documentRoot === 'string' ? [merged.documentRoot] : (merged.documentRoot ?? []);
  return {
    ...merged,
    name,
    documentRoots: roots.map((root) => resolve(serverDir, root)),
    restapiRoot: resolve(serverDir, merged.restapiRoot ?? '..'),
    remoteServices: merged.remoteServices ?? [],
    proxyException: merged.proxyException ?? {},
  };
}

/**
 * Claims each method's route for `owner`, and says, one line per other service, which routes another service took
 * first. The mock server matches without regard to case, parameter names or a trailing slash: the line says so when
 * the two templates are not written alike, or the second one looks like another route.
 */
function claimRoutes(routes: Map<string, RouteOwner>, owner: RouteOwner, methods: string[]): string[] {
  const taken = new Map<RouteOwner, string[]>();
  for (const method of methods) {
    const key = routeKey(method, owner.uriTemplate);
    const other = routes.get(key);
    if (other) taken.set(other, [...(taken.get(other) ?? []), method]);
    else routes.set(key, owner);
  }
  return [...taken].map(([other, claimed]) => {
    const alike = other.uriTemplate === owner.uriTemplate;
    return (
      `${owner.file}:${owner.line}: /uriTemplate: ${claimed.join(', ')} ${owner.uriTemplate} ` +
      `${claimed.length === 1 ? 'is' : 'are'} also served by ${other.file}:${other.line}` +
      (alike
        ? ''
        : ` as ${other.uriTemplate}, the same route to the mock server (paths match without regard to case, ` +
          'parameter names or a trailing slash)')
    );
  });
}

/**
 * Reads a REST API project: `server/config.yml` (the environment, `default` merged with the selected one), the
 * project `config.yml`, and every listed service's `service.yml`, each validated against its schema. Every problem
 * of every file is collected; any problem is one `PROJECT_INVALID` error listing them all (a folder with no config
 * at all is one line: not a project folder).
 */
export async function loadProject(options: { projectDir: string; environment?: string }): Promise<Project> {
  const root = resolve(options.projectDir);
  await assertProjectFolder(root);
  const serverDir = join(root, 'server');
  const server = await readYamlFile(join(serverDir, 'config.yml'), 'server/config.yml');
  if (!server.ok) throw new RestbusError('PROJECT_INVALID', server.problems.join('\n'));
  const serverConfig = readServer(server.file);
  if (!serverConfig.ok) throw new RestbusError('PROJECT_INVALID', problemsOf(serverConfig).join('\n'));
  const environment = selectEnvironment(serverConfig.value, options.environment, serverDir);
  if (typeof environment === 'string') throw new RestbusError('PROJECT_INVALID', environment);
  const legacyProxy = readLegacyProxy(environment, serverConfig.value, server.file);
  if (legacyProxy.problem) throw new RestbusError('PROJECT_INVALID', legacyProxy.problem);
  if (legacyProxy.rule) environment.remoteServices = [...environment.remoteServices, legacyProxy.rule];

  const projectRoot = environment.restapiRoot;
  const relative = (path: string): string => (path.startsWith(`${root}/`) ? path.slice(root.length + 1) : path);
  const configPath = join(projectRoot, 'config.yml');
  const configFile = await readYamlFile(configPath, relative(configPath));
  if (!configFile.ok) throw new RestbusError('PROJECT_INVALID', configFile.problems.join('\n'));
  const checkedConfig = readConfig(configFile.file);
  if (!checkedConfig.ok) throw new RestbusError('PROJECT_INVALID', problemsOf(checkedConfig).join('\n'));
  const config = checkedConfig.value;

  const problems: string[] = [];
  const warnings: string[] = legacyProxy.warning ? [legacyProxy.warning] : [];
  const services: ServiceDescriptor[] = [];
  // Each route's first service: its file, the line of its uriTemplate, the template as written.
  const routes = new Map<string, RouteOwner>();
  let expanded = server.file.expandedSize + configFile.file.expandedSize;
  for (const path of config.services) {
    const filePath = join(projectRoot, config.servicesRoot, path, 'service.yml');
    const file = await readYamlFile(filePath, relative(filePath));
    if (!file.ok) {
      problems.push(...file.problems);
      continue;
    }
    expanded += file.file.expandedSize;
    if (expanded > MAX_PROJECT_EXPANDED_BYTES) {
      problems.push(
        `${file.file.name}: the project's YAML files grow past ${MAX_PROJECT_EXPANDED_BYTES / 1024 / 1024} MiB in all once their aliases are expanded; reading stopped here`,
      );
      break;
    }
    const { value } = file.file;
    if (isJsonObject(value) && typeof value.urlPattern === 'string' && value.uriTemplate === undefined) {
      value.uriTemplate = value.urlPattern;
      warnings.push(`${file.file.name}: urlPattern is deprecated, use uriTemplate`);
    }
    const checked = readService(file.file);
    if (!checked.ok) {
      problems.push(...problemsOf(checked));
      continue;
    }
    const descriptor = checked.value;
    const templateProblem = findUriTemplateProblem(descriptor.uriTemplate);
    if (templateProblem) {
      problems.push(`${file.file.name}:${file.file.lineOf('/uriTemplate')}: /uriTemplate: ${templateProblem}`);
      continue;
    }
    const owner: RouteOwner = {
      file: file.file.name,
      line: file.file.lineOf('/uriTemplate'),
      uriTemplate: descriptor.uriTemplate,
    };
    problems.push(...claimRoutes(routes, owner, Object.keys(descriptor.methods)));
    services.push({ path, file: file.file.name, descriptor, lineOf: file.file.lineOf });
  }
  if (problems.length) throw new RestbusError('PROJECT_INVALID', problems.join('\n'));
  return { root, environment, config, services, warnings };
}
