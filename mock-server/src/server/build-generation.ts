import type { Logger } from '@restbus/infra';
import type { Project } from '@restbus/project-format';
import { compileProxyRules, type ProxyRules } from '../proxy/compile-proxy-rules';
import { createLoginCheck, createOpenPathCheck } from '../request/check-login';
import { DEFAULT_EVENT_INTERVAL_MS, HEARTBEAT_MS } from '../services/answer-event-stream';
import { createServiceRoutes, type ServiceRouter } from '../services/create-service-routes';
import { loadImplementations } from '../services/load-implementations';
import { createMockFiles } from '../services/create-mock-files';
import { createStatefulServices, type StatefulServices } from '../services/stateful/create-stateful-services';
import { compileRequestChecks } from '../services/validation/compile-request-checks';
import { createProjectStatics } from '../static/create-project-statics';
import type { StaticFiles } from '../static/create-static-mounts';

/** Everything served from one load of the project; a hot reload builds a new one and swaps it in whole. */
export interface Generation {
  project: Project;
  proxy: ProxyRules;
  services: ServiceRouter;
  /** Stateful collections, reset by `POST /-/reset`; a reload starts them afresh. */
  state: StatefulServices;
  statics: StaticFiles;
  /**
   * Whether a request may have an answer at all: with `requireLogin`, basic authentication covers everything the
   * server answers (services, static folders, proxied calls) except the environment's `openPaths`.
   */
  admits(req: Parameters<ReturnType<typeof createLoginCheck>>[0], path: string): boolean;
  realm: string;
  /**
   * Modules that failed to load, functions that are missing and templates that do not compile: their services
   * answer from their OK mock file or their descriptor, with an X-Mock-Warning header (500 when `strict`).
   */
  problems: string[];
  /** Modules that failed to load only for want of an installed package: served the same way, but no defect. */
  missingPackages: string[];
  /** Whether broken implementations and mock files answer 500 rather than a fallback. */
  strict: boolean;
  /** Modules that exist but failed to load (a hot reload does not swap in a module broken by an edit). */
  failedModules: string[];
  /** What was left out of the descriptors (headers Node refuses, bad status codes) or is probably a mistake. */
  warnings: string[];
  /** Whether requests are checked against their descriptors (--validate, or the environment's `validate`). */
  validate: boolean;
  /**
   * With `validate`: request schemas that cannot be used by routes `validateUnchecked` does not name; the server does
   * not start with them (a reload keeps the last good version), `--check` fails on them.
   */
  schemaProblems: string[];
  /** With `validate`: the routes `validateUnchecked` names whose schemas cannot be used: their bodies go unchecked. */
  uncheckedBodies: string[];
}

export interface GenerationOptions {
  /** Broken implementations and mock files answer 500 instead of falling back (see createServiceRoutes). */
  strict?: boolean;
  /** Check requests against their descriptors; default: the environment's `validate`. */
  validate?: boolean;
  /** Routes (`METHOD /uriTemplate`) whose bodies go unchecked when their schema cannot be used (--validate-unchecked). */
  validateUnchecked?: readonly string[];
  /** What all stateful collections and sessions may hold together, in estimated bytes of memory. */
  stateMemory?: number;
  /** Between two events of a mocked event stream, in ms (default 1000). */
  eventInterval?: number;
}

export async function buildGeneration(
  project: Project,
  logger: Logger,
  options: GenerationOptions = {},
): Promise<Generation> {
  const strict = options.strict === true;
  const warnings: string[] = [];
  const implementations = loadImplementations(project, { logger });
  const problems = [...implementations.problems];
  const mockFiles = createMockFiles(project.environment.restapiRoot);
  const validate = options.validate ?? project.environment.validate === true;
  const requestChecks = validate
    ? await compileRequestChecks(project, { unchecked: options.validateUnchecked })
    : undefined;
  const state = createStatefulServices({
    project,
    mockFiles,
    warn: (message) => warnings.push(message),
    maxBytes: options.stateMemory,
  });
  const services = createServiceRoutes({
    stateful: state,
    project,
    mockFiles,
    implementations,
    logger,
    warn: (message) => warnings.push(message),
    strict,
    requestChecks,
    eventTiming: { intervalMs: options.eventInterval ?? DEFAULT_EVENT_INTERVAL_MS, heartbeatMs: HEARTBEAT_MS },
  });
  // A broken template is found now, at load, with its line: not by the first request that needs it.
  problems.push(...(await services.checkTemplates()));
  const statics = createProjectStatics(project, (message) => warnings.push(message));
  const credentials = project.config.loginCredentials;
  let admits: Generation['admits'] = () => true;
  if (project.environment.requireLogin === true) {
    const isOpen = createOpenPathCheck(project.environment.openPaths);
    const loggedIn = credentials ? createLoginCheck(credentials) : () => false;
    if (!credentials) {
      warnings.push('requireLogin is set but config.yml has no loginCredentials: every request answers 401');
    }
    admits = (req, path) => isOpen(path) || loggedIn(req);
  }
  return {
    project,
    proxy: compileProxyRules(project.environment, project.config.serviceUrlPrefix),
    services,
    state,
    statics,
    admits,
    realm: project.config.projectName,
    problems,
    missingPackages: implementations.missingPackages,
    strict,
    failedModules: implementations.failedModules,
    warnings,
    validate,
    schemaProblems: requestChecks?.problems ?? [],
    uncheckedBodies: requestChecks?.skipped ?? [],
  };
}
