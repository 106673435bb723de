import { join } from 'node:path';
import type { Logger } from '@restbus/infra';
import type { Project } from '../project/load-project';
import { compileProxyRules, type ProxyRules } from '../proxy/compile-proxy-rules';
import { createLoginCheck } from '../request/check-login';
import { createServiceRoutes, type ServiceRouter } from '../services/create-service-routes';
import { loadImplementations } from '../services/load-implementations';
import { createMockFiles } from '../services/read-mock-files';
import { createStaticFiles, createStaticMounts, type StaticFiles } from '../static/create-static-mounts';

/** Everything served from one load of the project; a hot reload builds a new one and swaps it in whole. */
export interface Generation {
  project: Project;
  proxy: ProxyRules;
  services: ServiceRouter;
  statics: StaticFiles;
  /** Whether a request may use the services (basic authentication when the environment sets `requireLogin`). */
  admits(req: Parameters<ReturnType<typeof createLoginCheck>>[0]): boolean;
  realm: string;
  /** Modules that failed to load and functions that are missing: their services answer 500. */
  problems: string[];
  /** What was left out of the descriptors (headers Node refuses, bad status codes) or is probably a mistake. */
  warnings: string[];
}

export function buildGeneration(project: Project, logger: Logger): Generation {
  const warnings: string[] = [];
  const implementations = loadImplementations(project);
  const problems = [...implementations.problems];
  const mockFiles = createMockFiles(project.environment.restapiRoot);
  const services = createServiceRoutes({
    project,
    mockFiles,
    implementations,
    logger,
    warn: (message) => warnings.push(message),
  });
  const root = project.environment.restapiRoot;
  const statics = createStaticFiles(
    createStaticMounts([
      { prefix: '/data', dir: join(root, 'data') },
      { prefix: '/docs', dir: join(root, 'docs') },
      { prefix: '/services', dir: join(root, project.config.servicesRoot) },
      ...project.environment.documentRoots.map((dir) => ({ prefix: '', dir })),
    ]),
  );
  const credentials = project.config.loginCredentials as { user: string; pass: string } | undefined;
  let admits: Generation['admits'] = () => true;
  if (project.environment.requireLogin === true) {
    if (credentials) admits = createLoginCheck(credentials);
    else {
      warnings.push('requireLogin is set but config.yml has no loginCredentials: every service answers 401');
      admits = () => false;
    }
  }
  return {
    project,
    proxy: compileProxyRules(project.environment, project.config.serviceUrlPrefix),
    services,
    statics,
    admits,
    realm: project.config.projectName as string,
    problems,
    warnings,
  };
}
