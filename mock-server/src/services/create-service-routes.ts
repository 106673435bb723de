import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToLoop } from 'node:timers/promises';
import { join, relative } from 'node:path';
import type { Request, Response } from 'express';
import { describeRequestProblems, isRestbusError, RestbusError, type Logger } from '@restbus/infra';
import { readBodyLength } from '../request/parse-body';
import {
  compileUriTemplate,
  findMethod,
  listMethods,
  type Project,
  type ServiceDescriptor,
  type UriMatcher,
} from '@restbus/project-format';
import { prepareResponses, type PreparedResponse } from './prepare-responses';
import { answerEventStream, toMockEvents, type EventStreamTiming } from './answer-event-stream';
import type { Implementations } from './load-implementations';
import { isTemplateFile, type MockFiles } from './create-mock-files';
import { seedOf, toTemplateContext } from './templates/to-template-context';
import type { StatefulServices } from './stateful/create-stateful-services';
import type { RequestCheck, RequestChecks } from './validation/compile-request-checks';

export interface ServiceRoute {
  method: string;
  matcher: UriMatcher;
  /** `serviceUrlPrefix + uriTemplate`: what a log line names the route by. */
  template: string;
  /** Whether the route runs user code (which may use `request.session`). */
  implemented: boolean;
  /** Whether the route reads the request body (user code, or a stateful POST or PUT). */
  readsBody: boolean;
  /** Whether the route needs `request.session` (user code, or a state kept per session). */
  usesSession: boolean;
  handle(req: Request, res: Response): Promise<void>;
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

const DEFAULT_RESPONSE = 'OK';

/** Says, on an answer that came from a fallback, why and from what. */
export const MOCK_WARNING_HEADER = 'x-mock-warning';
const MAX_WARNING_LENGTH = 400;

// A header value must be latin-1 without control characters, or setHeader throws; a project-relative name may hold
// anything.
const toHeaderValue = (text: string): string => {
  const printable = text.replace(/[^\x20-\x7e]/g, '?');
  return printable.length > MAX_WARNING_LENGTH ? `${printable.slice(0, MAX_WARNING_LENGTH - 3)}...` : printable;
};

function selectResponse(req: Request, responses: Map<string, PreparedResponse>): PreparedResponse | undefined {
  const requested = req.headers['x-mock-response'];
  if (typeof requested === 'string' && requested !== '') {
    const found = responses.get(requested);
    if (found) return found;
    const known = [...responses.keys()].map((name) => JSON.stringify(name)).join(', ') || 'none';
    throw new RestbusError(
      'BAD_REQUEST',
      `X-Mock-Response: no response named ${JSON.stringify(requested)}; declared: ${known}`,
    );
  }
  return responses.get(DEFAULT_RESPONSE) ?? responses.values().next().value;
}

/** The headers every answer of a response carries, a body or a stream: declared ones, cookies, the API version. */
function describeHeaders(
  response: PreparedResponse | undefined,
  apiVersion: string,
  warning: string | undefined,
): Record<string, string | string[]> {
  const headers: Record<string, string | string[]> = Object.fromEntries(response?.headers ?? []);
  if (warning !== undefined) headers[MOCK_WARNING_HEADER] = toHeaderValue(warning);
  if (response?.cookies.length) headers['set-cookie'] = response.cookies;
  headers['x-application-api-version'] = apiVersion;
  return headers;
}

function writeResponse(
  res: Response,
  response: PreparedResponse | undefined,
  body: Buffer | string,
  type: string,
  apiVersion: string,
  warning?: string,
): void {
  for (const [field, content] of Object.entries(describeHeaders(response, apiVersion, warning))) {
    res.setHeader(field, content);
  }
  res.setHeader('content-type', response?.declaredType ?? type);
  res.statusCode = response?.status ?? 200;
  // A 204 or 304 has no body (RFC 9110): Node sends none, and a Content-Length (the descriptor's, a mock file's) kept
  // a client on a keep-alive connection waiting for its bytes until the server closed it.
  if (res.statusCode === 204 || res.statusCode === 304) {
    res.end();
    return;
  }
  res.setHeader('content-length', Buffer.byteLength(body));
  res.end(body);
}

/** What an implementation function gets as its third argument: the whole descriptor and its mock files. */
function describeService(
  service: ServiceDescriptor,
  serviceDir: string,
  contentPath: string,
  mockFiles: MockFiles,
  config: Project['config'],
) {
  const readMockFile = async (file: string): Promise<unknown> => {
    const mock = await mockFiles.read(serviceDir, file);
    return mock.json ? JSON.parse(mock.body.toString('utf8')) : mock.body;
  };
  const described = { ...structuredClone(service.descriptor), path: service.path, contentPath };
  // Methods are not enumerable so that the descriptor still serialises to its plain content.
  Object.defineProperties(described, {
    // The project's config.yml (apiVersion, loginCredentials...), read-only.
    config: { value: Object.freeze(structuredClone(config)) },
    readMockFile: { value: readMockFile },
    readMockResponse: {
      value: (method: string, name = DEFAULT_RESPONSE) => {
        const responses = findMethod(service.descriptor, method)?.responses ?? [];
        const mockBody = responses.find((response) => response.name === name)?.mockBody;
        return typeof mockBody === 'string' && mockBody ? readMockFile(mockBody) : Promise.resolve(undefined);
      },
    },
  });
  return described;
}

/** The response a fallback answers with, as upstream's getMockResponseBody took it: `OK`, else a 200 one. */
function findOkResponse(responses: Map<string, PreparedResponse>): PreparedResponse | undefined {
  const ok = responses.get(DEFAULT_RESPONSE);
  if (ok) return ok;
  for (const response of responses.values()) if (response.status === 200) return response;
  return undefined;
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

const isMockUnavailable = (err: unknown): err is RestbusError => isRestbusError(err) && err.code === 'MOCK_UNAVAILABLE';

/**
 * The project's services as routes at `serviceUrlPrefix + uriTemplate`. Each method answers, in this order of
 * preference, with its implementation function, the selected response's mock file, or the descriptor itself.
 *
 * Where one of those is broken (an implementation that cannot be loaded or found, a mock file that is missing or
 * invalid) the answer falls back, as upstream rest-tool's did, to the OK mock file, else to the descriptor, with an
 * X-Mock-Warning header saying why; the reason is logged once per file. With `strict` these are 500s instead.
 */
export function createServiceRoutes(deps: ServiceRoutesDeps): ServiceRouter {
  const { project, mockFiles, implementations, logger } = deps;
  const strict = deps.strict === true;
  const prefix = project.config.serviceUrlPrefix.replace(/\/$/, '');
  const apiVersion = project.config.apiVersion;
  const routes: ServiceRoute[] = [];
  const templateChecks: Array<() => Promise<string | undefined>> = [];
  // One log line per broken mock file, not one per request (modules are reported once at load).
  const warned = new Set<string>();
  const warnOnce = (key: string, fields: Record<string, unknown>, message: string): void => {
    if (warned.has(key)) return;
    warned.add(key);
    logger.warn(fields, message);
  };

  for (const service of project.services) {
    const serviceDir = join(project.environment.restapiRoot, project.config.servicesRoot, service.path);
    const contentPath = relative(project.environment.restapiRoot, serviceDir);
    const matcher = compileUriTemplate(prefix, service.descriptor.uriTemplate);
    const template = `${prefix}${service.descriptor.uriTemplate}`;
    const described = describeService(service, serviceDir, contentPath, mockFiles, project.config);
    const echo = JSON.stringify({ ...service.descriptor, path: service.path, contentPath });

    for (const [method, definition] of listMethods(service.descriptor)) {
      const where = `${service.file}: ${method}`;
      const responses = prepareResponses(definition, where, deps.warn);
      const ok = findOkResponse(responses);
      const reference = definition.implementation;
      const check = deps.requestChecks?.of(service, method);
      const fromState = reference === undefined ? deps.stateful?.handlerFor(service, method) : undefined;
      if (fromState) {
        const usesSession = deps.stateful?.perSession(service) === true;
        const route = {
          method,
          matcher,
          template,
          implemented: false,
          readsBody: method !== 'GET',
          usesSession,
          handle: fromState,
        };
        routes.push(withCheck(route, check));
        continue;
      }

      /** A mock file and the body to send (a template rendered for the request), or why it cannot be sent (logged once per file). */
      const readMock = async (req: Request, response: PreparedResponse, mockBody: string, asType?: string) => {
        try {
          const mock = await mockFiles.read(serviceDir, mockBody, asType ?? response.declaredType);
          const body = mock.template ? mock.template.render(toTemplateContext(req), seedOf(req)) : mock.body;
          return { mock, body };
        } catch (err) {
          if (strict || !isMockUnavailable(err)) throw err;
          warnOnce(
            `${mockBody}\0${serviceDir}`,
            { service: service.path, method, response: response.name },
            `${err.message}: ${method} ${service.descriptor.uriTemplate} answers from a fallback instead (X-Mock-Warning)`,
          );
          return { problem: err.message };
        }
      };

      /** Answers from the OK mock file, else from the descriptor, saying why in X-Mock-Warning. */
      const answerFallback = async (
        req: Request,
        res: Response,
        reason: string,
        tried?: PreparedResponse,
      ): Promise<void> => {
        let why = reason;
        if (ok?.mockBody && ok !== tried) {
          const read = await readMock(req, ok, ok.mockBody);
          if (read.mock) {
            writeResponse(res, ok, read.body, read.mock.type, apiVersion, `${why}; answered with ${read.mock.name}`);
            return;
          }
          why = `${why}; ${read.problem}`;
        }
        writeResponse(res, undefined, echo, 'application/json', apiVersion, `${why}; answered with the descriptor`);
      };

      /**
       * An event stream: the events of its mock file, paced. A mock file that cannot be used is a stream without
       * events and an X-Mock-Warning saying why (500 with `strict`), as other broken mock files fall back.
       */
      const answerStream = async (req: Request, res: Response, response: PreparedResponse): Promise<void> => {
        let events: string[] = [];
        let warning: string | undefined;
        if (response.mockBody) {
          const read = await readMock(req, response, response.mockBody, 'application/json');
          let problem = read.problem;
          if (read.mock) {
            try {
              events = toMockEvents(read.body.toString());
            } catch (err) {
              // A template that rendered something else than JSON for this request.
              problem = `the mock file ${read.mock.name} did not give JSON: ${(err as Error).message}`;
              if (strict) throw new RestbusError('MOCK_UNAVAILABLE', problem);
            }
          }
          if (problem !== undefined) warning = `${problem}; the stream sends no events`;
        }
        const headers = describeHeaders(response, apiVersion, warning);
        answerEventStream(req, res, { status: response.status, headers, events }, deps.eventTiming);
      };

      let handle: ServiceRoute['handle'];
      if (reference) {
        const resolved = implementations.resolve(reference);
        handle = async (req, res) => {
          // What failed stays in the log (a message may name a file, a host or a password); the client gets an id
          // to find it there. The app logs each failure once (logRequestFailure), with its cause's stack.
          if (!resolved.ok) {
            // Logged once, at load, with the loader's own message (see startMockServer's report).
            if (!strict)
              return answerFallback(req, res, `the implementation ${reference} is not available: ${resolved.reason}`);
            throw new RestbusError(
              'IMPLEMENTATION_UNAVAILABLE',
              `the implementation ${reference} is not available: ${resolved.reason} (failure ${randomUUID()} in the server log)`,
            );
          }
          try {
            await resolved.fn(req, res, described);
          } catch (err) {
            throw new RestbusError(
              'HANDLER_FAILED',
              `the implementation ${reference} failed (failure ${randomUUID()} in the server log)`,
              { cause: err },
            );
          }
        };
      } else {
        handle = async (req, res) => {
          const response = selectResponse(req, responses);
          if (response?.stream) return answerStream(req, res, response);
          if (response?.mockBody) {
            const read = await readMock(req, response, response.mockBody);
            if (read.mock) writeResponse(res, response, read.body, read.mock.type, apiVersion);
            else await answerFallback(req, res, read.problem, response);
          } else {
            writeResponse(res, response, echo, 'application/json', apiVersion);
          }
        };
      }
      // A template may show body fields.
      const templated = [...responses.values()].filter((response) => isTemplateFile(response.mockBody ?? ''));
      for (const response of templated) {
        templateChecks.push(() =>
          mockFiles
            .read(serviceDir, response.mockBody ?? '', response.stream ? 'application/json' : response.declaredType)
            .then(
              () => undefined,
              (err: unknown) => (isMockUnavailable(err) ? err.message : undefined),
            ),
        );
      }
      const route = {
        method,
        matcher,
        template,
        implemented: reference !== undefined,
        readsBody: reference !== undefined || templated.length > 0,
        usesSession: reference !== undefined,
        handle,
      };
      routes.push(withCheck(route, check));
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
