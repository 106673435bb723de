import { join } from 'node:path';
import type { Request, Response } from 'express';
import { isJsonObject, RestbusError } from '@restbus/infra';
import { findMethod, routeKey, type Project, type ServiceDescriptor } from '@restbus/project-format';
import type { MockFiles } from '../create-mock-files';
import { createResourceState, MAX_STATE_BYTES, type Item, type ResourceState } from './create-resource-state';
import { createStateBudget, type StateAccount } from './create-state-budget';
import { stringifyInChunks } from './stringify-in-chunks';

declare module 'express-session' {
  interface SessionData {
    /** Set on the first use of a per-session state; express-session saves only a session that was changed. */
    restbusState: boolean;
  }
}

type Handler = (req: Request, res: Response) => Promise<void>;

export interface StatefulServices {
  /** The handler the state gives a method of a service, when the service is stateful and the method one it answers. */
  handlerFor(service: ServiceDescriptor, method: string): Handler | undefined;
  /** Whether the service keeps one state per client session (its routes need `request.session`). */
  perSession(service: ServiceDescriptor): boolean;
  /** Whether any service is stateful (only then does the server answer `POST /-/reset`). */
  readonly any: boolean;
  /** Every state back to its seed. */
  reset(): void;
}

interface Role {
  kind: 'collection' | 'resource';
  /** The state a request works on: the one state, or its session's. */
  stateOf(req: Request): ResourceState;
  perSession: boolean;
  /** `serviceUrlPrefix + uriTemplate` of the collection, for Location. */
  collectionUrl: string;
  /** The resource's path parameter that names an item's id. */
  idParameter?: string;
}

/** The parameter a template ends with (`/customers/{id}` → `id`). */
const lastParameterOf = (uriTemplate: string): string | undefined => /\/\{([^}/]+)\}\/?$/.exec(uriTemplate)?.[1];

function readItem(req: Request): Item {
  const body: unknown = req.body;
  if (!isJsonObject(body) || Buffer.isBuffer(body)) {
    throw new RestbusError('BAD_REQUEST', 'the body must be a JSON object (Content-Type: application/json)');
  }
  return body;
}

/**
 * Stateful mocks (`stateful: true` in the environment or in a COLLECTION's descriptor): the COLLECTION and the
 * RESOURCE below it (`/customers` and `/customers/{id}`) act as one in-memory collection seeded from the
 * collection's GET mock file. GET lists, POST adds (201 with Location; an id assigned when the body has none),
 * GET/PUT/DELETE on the resource read, replace and remove by id, an unknown id is a JSON 404. Only the methods the
 * descriptors declare are answered; an implementation function still wins over the state.
 */
export function createStatefulServices(deps: {
  project: Project;
  mockFiles: MockFiles;
  warn(message: string): void;
  /** What all states together may hold, in estimated bytes of memory (default DEFAULT_STATE_MEMORY). */
  maxBytes?: number;
}): StatefulServices {
  const { project, mockFiles } = deps;
  const budget = createStateBudget<ResourceState>({ maxBytes: deps.maxBytes });
  // One collection may take the whole total, not more.
  const maxCollectionBytes = Math.min(MAX_STATE_BYTES, budget.maxBytes);
  const prefix = project.config.serviceUrlPrefix.replace(/\/$/, '');
  const roles = new Map<ServiceDescriptor, Role>();
  const resets: Array<() => void> = [];
  const modeOf = (service: ServiceDescriptor) => service.descriptor.stateful ?? project.environment.stateful ?? false;
  const isStateful = (service: ServiceDescriptor): boolean => modeOf(service) !== false;

  for (const collection of project.services) {
    const { descriptor } = collection;
    if (!isStateful(collection)) continue;
    if (descriptor.style !== 'COLLECTION') {
      if (descriptor.stateful !== undefined && descriptor.stateful !== false && descriptor.style !== 'RESOURCE') {
        deps.warn(
          `${collection.file}: stateful applies to a COLLECTION and the RESOURCE below it; served from its mock files`,
        );
      }
      continue;
    }
    const base = descriptor.uriTemplate.replace(/\/$/, '');
    // The resource below is the collection's route plus one parameter, matched as the server matches routes.
    const below = routeKey('GET', `${base}/{}`);
    const resource = project.services.find(
      (other) =>
        other.descriptor.style === 'RESOURCE' &&
        lastParameterOf(other.descriptor.uriTemplate) !== undefined &&
        routeKey('GET', other.descriptor.uriTemplate) === below,
    );
    const seedFile = findMethod(descriptor, 'GET')?.responses.find((response) => response.name === 'OK')?.mockBody;
    const serviceDir = join(project.environment.restapiRoot, project.config.servicesRoot, collection.path);
    const newState = (account: StateAccount): ResourceState =>
      createResourceState({
        name: descriptor.uriTemplate,
        maxBytes: maxCollectionBytes,
        account,
        seed: async () => {
          if (typeof seedFile !== 'string' || !seedFile) return [];
          const mock = await mockFiles.read(serviceDir, seedFile);
          if (!mock.json) return [];
          // A template seeds with what it renders for a request without parameters (its fake data seeded too).
          const request = {
            method: 'GET',
            path: descriptor.uriTemplate,
            params: {},
            query: {},
            headers: {},
            cookies: {},
          };
          const text = mock.template
            ? mock.template.render({ request: { ...request, body: undefined } }, `GET ${descriptor.uriTemplate}`)
            : mock.body.toString('utf8');
          const seeded: unknown = JSON.parse(text);
          return seeded;
        },
      });
    const perSession = modeOf(collection) === 'session';
    let stateOf: Role['stateOf'];
    if (perSession) {
      const key = collection.path;
      stateOf = (req) => {
        // Touching the session marks it, so that express-session saves it and sets its cookie.
        req.session.restbusState = true;
        // The session becomes the most recently used: the flood of new ones pushes out those used longest ago.
        const { account, states } = budget.sessionStates(req.sessionID);
        let state = states.get(key);
        if (!state) {
          state = newState(account);
          states.set(key, state);
        }
        return state;
      };
      resets.push(() => budget.clearSessions());
    } else {
      const state = newState(budget.shared);
      stateOf = () => state;
      resets.push(() => state.reset());
    }
    const collectionUrl = `${prefix}${base}`;
    roles.set(collection, { kind: 'collection', stateOf, perSession, collectionUrl });
    if (resource) {
      const idParameter = lastParameterOf(resource.descriptor.uriTemplate)!;
      roles.set(resource, { kind: 'resource', stateOf, perSession, collectionUrl, idParameter });
    }
  }

  const sendText = (res: Response, status: number, text: string, headers: Record<string, string> = {}): void => {
    res.writeHead(status, {
      ...headers,
      // As a JSON mock file is sent: generated tests compare the header exactly.
      'content-type': 'application/json',
      'content-length': Buffer.byteLength(text),
      'x-application-api-version': project.config.apiVersion,
    });
    res.end(text);
  };

  const sendJson = (res: Response, status: number, body: unknown, headers: Record<string, string> = {}): void =>
    sendText(res, status, JSON.stringify(body), headers);

  function handlerFor(service: ServiceDescriptor, method: string): Handler | undefined {
    const role = roles.get(service);
    if (!role) return undefined;
    const { stateOf, collectionUrl } = role;
    const locationOf = (item: Item): string => `${collectionUrl}/${encodeURIComponent(String(item.id))}`;
    if (role.kind === 'collection') {
      if (method === 'GET') {
        return async (req, res) => sendText(res, 200, await stringifyInChunks(await stateOf(req).list()));
      }
      if (method === 'POST')
        return async (req, res) => {
          const item = await stateOf(req).add(readItem(req));
          sendJson(res, 201, item, { location: locationOf(item) });
        };
      return undefined;
    }
    const idOf = (req: Request): string => {
      const id = req.params[role.idParameter!];
      return typeof id === 'string' ? id : '';
    };
    const missing = (req: Request): RestbusError =>
      new RestbusError('NOT_FOUND', `${collectionUrl} has no item with the id ${JSON.stringify(idOf(req))}`);
    switch (method) {
      case 'GET':
        return async (req, res) => {
          const item = await stateOf(req).get(idOf(req));
          if (!item) throw missing(req);
          sendJson(res, 200, item);
        };
      case 'PUT':
        return async (req, res) => {
          const item = await stateOf(req).replace(idOf(req), readItem(req));
          if (!item) throw missing(req);
          sendJson(res, 200, item);
        };
      case 'DELETE':
        return async (req, res) => {
          if (!(await stateOf(req).remove(idOf(req)))) throw missing(req);
          res.writeHead(204, { 'x-application-api-version': project.config.apiVersion });
          res.end();
        };
      default:
        return undefined;
    }
  }

  return {
    handlerFor,
    perSession: (service) => roles.get(service)?.perSession === true,
    any: resets.length > 0,
    reset: () => resets.forEach((reset) => reset()),
  };
}
