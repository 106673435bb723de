import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { join, relative } from 'node:path';
import { describeRequestProblems, RestbusError, type Logger } from '@restbus/infra';
import { readBodyLength } from '../request/parse-body';
import {
  compileUriTemplate,
  listMethods,
  type Project,
  type ServiceDescriptor,
  type UriMatcher,
} from '@restbus/project-format';
import { prepareResponses } from './prepare-responses';
import type { EventStreamTiming } from './answer-event-stream';
import type { Implementations } from './load-implementations';
import type { MockFiles } from './create-mock-files';
import type { StatefulServices } from './stateful/create-stateful-services';
import type { RequestCheck, RequestChecks } from './validation/compile-request-checks';
import { buildDeclaredAnswer } from './answers/build-declared-answer';
import { buildImplementationAnswer } from './answers/build-implementation-answer';
import { buildStatefulAnswer } from './answers/build-stateful-answer';
import { describeService } from './answers/describe-service';
import type { AnswerContext, AnswerSource, RouteAnswer, TemplateCheck } from './answers/route-answer';

export { MOCK_WARNING_HEADER } from './answers/write-response';

export interface ServiceRoute extends Omit<RouteAnswer, 'templateChecks'> {
  method: string;
  matcher: UriMatcher;
  /** `serviceUrlPrefix + uriTemplate`: what a log line names the route by. */
  template: string;
}

export interface ServiceRouter {
  /** The route for a method and path, or the methods the path has (empty when no service has the path). */
  find(method: string, path: string): { route: ServiceRoute; params: Record<string, string> } | { allow: string[] };
  /** Compiles every template mock file now: what is wrong with them, as `file:line: what`. */
  checkTemplates(): Promise<string[]>;
}

export interface ServiceRoutesDeps {
  project: Project;
  mockFiles: MockFiles;
  implementations: Implementations;
  logger: Logger;
  warn(message: string): void;
  /**
   * Answer 500 (IMPLEMENTATION_UNAVAILABLE, MOCK_UNAVAILABLE) where the server would otherwise fall back, as
   * upstream rest-tool did, to the OK mock file or the descriptor.
   */
  strict?: boolean;
  /** Stateful collections: their methods answer from the state instead of the mock files. */
  stateful?: StatefulServices;
  /** --validate: requests are checked against their method's declarations first (400 REQUEST_INVALID). */
  requestChecks?: RequestChecks;
  /** The pace of event streams (responses declaring `Content-Type: text/event-stream`). */
  eventTiming?: EventStreamTiming;
}

/**
 * Where a method's answer comes from, in order of preference: the first source that takes the method answers it, and
 * the method's declared responses (buildDeclaredAnswer) answer any other. A new source is a module in answers/ and
 * one line here.
 */
const ANSWER_SOURCES: readonly AnswerSource[] = [buildImplementationAnswer, buildStatefulAnswer];

/** The answer of a method, chosen once, when the routes are built. */
function chooseAnswer(context: AnswerContext): RouteAnswer {
  for (const buildAnswer of ANSWER_SOURCES) {
    const answer = buildAnswer(context);
    if (answer) return answer;
  }
  return buildDeclaredAnswer(context);
}

/** A route that answers 400 REQUEST_INVALID, with the problems, to a request its check refuses. */
function withCheck(route: ServiceRoute, check: RequestCheck | undefined): ServiceRoute {
  if (!check) return route;
  return {
    ...route,
    readsBody: route.readsBody || check.readsBody,
    async handle(req, res) {
      const { problems, partial } = check(req, readBodyLength(req));
      if (problems.length) {
        const refusal = describeRequestProblems('the request does not match its descriptor', problems, partial);
        throw new RestbusError('REQUEST_INVALID', refusal.message, { details: { problems: refusal.problems } });
      }
      // A large body's check is some milliseconds of work: other clients get a turn before it is answered.
      if (req.body !== undefined) await yieldToLoop();
      await route.handle(req, res);
    },
  };
}

/** What every method of a service shares: its folder, its descriptor as JSON and as its implementations see it. */
function describeServiceAnswers(service: ServiceDescriptor, deps: ServiceRoutesDeps) {
  const { project, mockFiles } = deps;
  const serviceDir = join(project.environment.restapiRoot, project.config.servicesRoot, service.path);
  const contentPath = relative(project.environment.restapiRoot, serviceDir);
  return {
    service,
    serviceDir,
    echo: JSON.stringify({ ...service.descriptor, path: service.path, contentPath }),
    described: describeService(service, serviceDir, contentPath, mockFiles, project.config),
  };
}

/**
 * The project's services as routes at `serviceUrlPrefix + uriTemplate`. Each method answers, in this order of
 * preference, with its implementation function, its stateful collection, the selected response's event stream or
 * mock file, or the descriptor itself (ANSWER_SOURCES).
 *
 * Where one of those is broken (an implementation that cannot be loaded or found, a mock file that is missing or
 * invalid) the answer falls back, as upstream rest-tool's did, to the OK mock file, else to the descriptor, with an
 * X-Mock-Warning header saying why; the reason is logged once per file. With `strict` these are 500s instead.
 */
export function createServiceRoutes(deps: ServiceRoutesDeps): ServiceRouter {
  const { project, logger } = deps;
  const prefix = project.config.serviceUrlPrefix.replace(/\/$/, '');
  const routes: ServiceRoute[] = [];
  const templateChecks: TemplateCheck[] = [];
  // One log line per broken mock file, not one per request (modules are reported once at load).
  const warned = new Set<string>();
  const shared = {
    apiVersion: project.config.apiVersion,
    strict: deps.strict === true,
    mockFiles: deps.mockFiles,
    implementations: deps.implementations,
    stateful: deps.stateful,
    eventTiming: deps.eventTiming,
    warnOnce(key: string, fields: Record<string, unknown>, message: string): void {
      if (warned.has(key)) return;
      warned.add(key);
      logger.warn(fields, message);
    },
  };

  for (const service of project.services) {
    const matcher = compileUriTemplate(prefix, service.descriptor.uriTemplate);
    const template = `${prefix}${service.descriptor.uriTemplate}`;
    const ofService = describeServiceAnswers(service, deps);
    for (const [method, definition] of listMethods(service.descriptor)) {
      const responses = prepareResponses(definition, `${service.file}: ${method}`, deps.warn);
      const context: AnswerContext = { ...shared, ...ofService, method, definition, responses };
      const { templateChecks: checks, ...answer } = chooseAnswer(context);
      templateChecks.push(...checks);
      routes.push(withCheck({ method, matcher, template, ...answer }, deps.requestChecks?.of(service, method)));
    }
  }

  return {
    find(method, path) {
      const allow: string[] = [];
      for (const route of routes) {
        const params = route.matcher.match(path);
        if (!params) continue;
        if (route.method === method || (method === 'HEAD' && route.method === 'GET')) return { route, params };
        allow.push(route.method);
      }
      return { allow };
    },
    async checkTemplates() {
      const problems = await Promise.all(templateChecks.map((check) => check()));
      return [...new Set(problems.filter((problem): problem is string => problem !== undefined))];
    },
  };
}
