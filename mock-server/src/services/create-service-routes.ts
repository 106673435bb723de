import { randomUUID } from 'node:crypto';
import { join, relative } from 'node:path';
import type { Request, Response } from 'express';
import { RestbusError, type Logger } from '@restbus/infra';
import type { Project, ServiceDescriptor } from '../project/load-project';
import { compileUriTemplate, type UriMatcher } from './compile-uri-template';
import { prepareResponses, type PreparedResponse } from './describe-responses';
import type { Implementations } from './load-implementations';
import type { MockFiles } from './read-mock-files';

export interface ServiceRoute {
  method: string;
  matcher: UriMatcher;
  /** Whether the route runs user code (which may use `request.session`). */
  implemented: boolean;
  handle(req: Request, res: Response): Promise<void>;
}

export interface ServiceRouter {
  /** The route for a method and path, or the methods the path has (empty when no service has the path). */
  find(method: string, path: string): { route: ServiceRoute; params: Record<string, string> } | { allow: string[] };
}

export interface ServiceRoutesDeps {
  project: Project;
  mockFiles: MockFiles;
  implementations: Implementations;
  logger: Logger;
  warn(message: string): void;
}

const DEFAULT_RESPONSE = 'OK';

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

function writeResponse(
  res: Response,
  response: PreparedResponse | undefined,
  body: Buffer | string,
  type: string,
  apiVersion: string,
): void {
  for (const [field, content] of response?.headers ?? []) res.setHeader(field, content);
  if (response?.cookies.length) res.setHeader('set-cookie', response.cookies);
  res.setHeader('x-application-api-version', apiVersion);
  res.setHeader('content-type', response?.declaredType ?? type);
  res.setHeader('content-length', Buffer.byteLength(body));
  res.statusCode = response?.status ?? 200;
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
        const responses = (service.descriptor.methods[method.toUpperCase()]?.responses ?? []) as Array<{
          name: string;
          mockBody?: string;
        }>;
        const mockBody = responses.find((response) => response.name === name)?.mockBody;
        return mockBody ? readMockFile(mockBody) : Promise.resolve(undefined);
      },
    },
  });
  return described;
}

/**
 * The project's services as routes at `serviceUrlPrefix + uriTemplate`. Each method answers, in this order of
 * preference, with its implementation function, the selected response's mock file, or the descriptor itself.
 */
export function createServiceRoutes(deps: ServiceRoutesDeps): ServiceRouter {
  const { project, mockFiles, implementations, logger } = deps;
  const prefix = project.config.serviceUrlPrefix.replace(/\/$/, '');
  const apiVersion = project.config.apiVersion;
  const routes: ServiceRoute[] = [];

  for (const service of project.services) {
    const serviceDir = join(project.environment.restapiRoot, project.config.servicesRoot, service.path);
    const contentPath = relative(project.environment.restapiRoot, serviceDir);
    const matcher = compileUriTemplate(prefix, service.descriptor.uriTemplate);
    const described = describeService(service, serviceDir, contentPath, mockFiles, project.config);
    const echo = JSON.stringify({ ...service.descriptor, path: service.path, contentPath });

    for (const [method, definition] of Object.entries(service.descriptor.methods)) {
      const where = `${service.file}: ${method}`;
      const responses = prepareResponses(definition, where, deps.warn);
      const reference = typeof definition.implementation === 'string' ? definition.implementation : undefined;

      let handle: ServiceRoute['handle'];
      if (reference) {
        const resolved = implementations.resolve(reference);
        handle = async (req, res) => {
          // What failed stays in the log (a message may name a file, a host or a password); the client gets an id
          // to find it there.
          const failureId = (): string => randomUUID();
          if (!resolved.ok) {
            const id = failureId();
            logger.error(
              { failureId: id, service: service.path, method, reason: resolved.reason },
              'implementation unavailable',
            );
            throw new RestbusError(
              'IMPLEMENTATION_UNAVAILABLE',
              `the implementation ${reference} is not available: ${resolved.reason} (failure ${id} in the server log)`,
            );
          }
          try {
            await resolved.fn(req, res, described);
          } catch (err) {
            const id = failureId();
            logger.error({ err, failureId: id, service: service.path, method }, 'implementation failed');
            throw new RestbusError(
              'HANDLER_FAILED',
              `the implementation ${reference} failed (failure ${id} in the server log)`,
            );
          }
        };
      } else {
        handle = async (req, res) => {
          const response = selectResponse(req, responses);
          if (response?.mockBody) {
            const mock = await mockFiles.read(serviceDir, response.mockBody, response.declaredType);
            writeResponse(res, response, mock.body, mock.type, apiVersion);
          } else {
            writeResponse(res, response, echo, 'application/json', apiVersion);
          }
        };
      }
      routes.push({ method, matcher, implemented: reference !== undefined, handle });
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
  };
}
