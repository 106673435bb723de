import { randomUUID } from 'node:crypto';
import { setImmediate as yieldToLoop, setTimeout as sleep } from 'node:timers/promises';
import { parse as parseCookies } from 'cookie';
import { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type httpProxy from 'http-proxy';
import {
  activeTracer,
  type ErrorCode,
  isJsonObject,
  isRestbusError,
  type Logger,
  logRequestFailure,
  refuseRequest,
  RestbusError,
  sendError,
} from '@restbus/infra';
import { normalisePath } from '../request/normalise-path';
import { traceMockAnswer } from './mock-spans';
import { createBodyParser, hasBody, overrideMethod } from '../request/parse-body';
import { readMockDelay } from '../request/read-mock-delay';
import { attachSession } from '../request/attach-session';
import { installContentTypeKeeping, keepSetContentType } from '../services/keep-set-content-type';
import type { Generation } from './build-generation';

export interface MockApp {
  /** Request and response classes for `http.createServer` (they carry express's methods). */
  IncomingMessage: typeof IncomingMessage;
  ServerResponse: typeof ServerResponse;
  listener(req: IncomingMessage, res: ServerResponse): void;
}

export interface MockAppDeps {
  current(): Generation;
  proxy: httpProxy;
  session: RequestHandler;
  logger: Logger;
  /** Bytes. */
  bodyLimit?: number;
}

// body-parser's own errors: their messages describe the body, never a file or the server.
const BODY_ERROR = /^(entity|charset|encoding|parameters|stream)\./;

/** The codes of the statuses `send` and Express's helpers fail with; another 4xx keeps its status as BAD_REQUEST. */
const CODE_OF_STATUS: Readonly<Record<number, ErrorCode>> = {
  403: 'FORBIDDEN',
  404: 'NOT_FOUND',
  413: 'BODY_TOO_LARGE',
  415: 'UNSUPPORTED_MEDIA_TYPE',
};

/**
 * What a failure tells the client. Our errors say what was wrong with the request (the body's mistakes are the
 * shared table's, see parse-body); anything else (a file that vanished while being sent, whose error names its
 * absolute path) gets a status and a generic message: the details are in the log only.
 */
function describeFailure(err: unknown): { error: RestbusError; status?: number } {
  if (isRestbusError(err)) return { error: err };
  // http-errors and body-parser's errors: Error objects with a status and a type.
  const failure = isJsonObject(err) ? err : {};
  const { status, type } = failure;
  if (status === 404) return { error: refuseRequest('notFound') };
  if (typeof status === 'number' && status >= 400 && status < 500) {
    const said = typeof failure.message === 'string' ? failure.message : '';
    const message = BODY_ERROR.test(typeof type === 'string' ? type : '') && said ? said : 'bad request';
    const code = CODE_OF_STATUS[status];
    return code
      ? { error: new RestbusError(code, message) }
      : { error: new RestbusError('BAD_REQUEST', message), status };
  }
  return { error: new RestbusError('INTERNAL', 'internal error', { cause: err }) };
}

/** The id a failure is answered and logged with: the client's own `X-Request-Id` when it is a plain token. */
const REQUEST_ID = /^[\w.:@+=-]{1,128}$/;
const readRequestId = (req: Request): string => {
  const given = req.headers['x-request-id'];
  return typeof given === 'string' && REQUEST_ID.test(given) ? given : randomUUID();
};

/**
 * The request pipeline, in the order the issue gives: proxy rules, body parsing and method override (only when a
 * body is there), services (sessions only for implementation functions, the only code that can use them), static
 * folders, then 404. One function instead of a middleware stack keeps a plain GET as cheap as a hello world.
 */
export function createMockApp(deps: MockAppDeps): MockApp {
  const { current, proxy, session, logger } = deps;
  const parseBody = createBodyParser(deps.bodyLimit ?? 1024 * 1024);
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  // Cookies are parsed when something reads them, not on every request.
  Object.defineProperty(app.request, 'cookies', {
    configurable: true,
    get(this: Request) {
      const cookies = parseCookies(this.headers.cookie ?? '');
      Object.defineProperty(this, 'cookies', { value: cookies, writable: true, configurable: true });
      return cookies;
    },
  });

  // The service route a request reached, for its failure's log line.
  const routes = new WeakMap<Request, string>();

  async function serve(req: Request, res: Response, generation: Generation): Promise<void> {
    // One spelling of the path for everything below: login, proxy rules and exceptions, services, static folders.
    const { path, hasEncodedSeparator } = normalisePath(req.path);
    if (path !== req.path) {
      const query = req.url.indexOf('?');
      req.url = query < 0 ? path : `${path}${req.url.slice(query)}`;
    }
    if (!generation.admits(req, path)) {
      throw new RestbusError('UNAUTHORIZED', 'this server needs the project login', {
        headers: { 'www-authenticate': `Basic realm=${JSON.stringify(generation.realm)}, charset="UTF-8"` },
      });
    }
    if (generation.state.any && path === '/-/reset' && req.method === 'POST') {
      generation.state.reset();
      res.writeHead(204).end();
      return;
    }
    const target = generation.proxy.targetOf(path);
    if (target) {
      if (hasEncodedSeparator) {
        throw new RestbusError('BAD_REQUEST', 'a path with an encoded separator or a backslash is not forwarded');
      }
      logger.debug({ method: req.method, url: req.url, target: target.target }, 'forwarding');
      proxy.web(req, res, { target: target.target });
      return;
    }

    let found = generation.services.find(req.method, path);
    if ('route' in found) routes.set(req, found.route.template);
    // A body is read only where something uses it: an implementation function, or a POST's `_method` override.
    const isService = 'route' in found || found.allow.length > 0;
    const usesBody = req.method === 'POST' ? isService : 'route' in found && found.route.readsBody;
    if (usesBody && hasBody(req)) {
      await parseBody(req, res);
      // Parsing, checking and answering a large body are each some milliseconds of work: other clients get a turn
      // between them rather than waiting for all of it at once.
      await yieldToLoop();
    }
    if (overrideMethod(req)) found = generation.services.find(req.method, path);

    if ('route' in found) {
      routes.set(req, found.route.template);
      const delay = readMockDelay(req);
      if (delay > 0) await sleep(delay);
      req.params = found.params;
      if (found.route.usesSession) await attachSession(session, req, res);
      if (found.route.implemented) keepSetContentType(res);
      await found.route.handle(req, res);
      return;
    }
    if (found.allow.length) {
      const allow = [...new Set(found.allow.includes('GET') ? [...found.allow, 'HEAD'] : found.allow)];
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { allow: [...allow, 'OPTIONS'].join(', ') }).end();
        return;
      }
      throw new RestbusError('METHOD_NOT_ALLOWED', `${req.method} is not served at ${req.path}`, {
        headers: { allow: allow.join(', ') },
      });
    }
    if (await generation.statics.serve(req, res)) return;
    throw new RestbusError('NOT_FOUND', `nothing is served at ${req.method} ${req.path}`);
  }

  const fail = (req: Request, res: Response, err: unknown): void => {
    const { error, status } = describeFailure(err);
    const reqId = readRequestId(req);
    // One line at the level the failure's kind has (logRequestFailure): a client's mistake at info, a 404 at debug.
    logRequestFailure(logger, error, { method: req.method, route: routes.get(req), path: req.path, reqId });
    sendError(
      res,
      error.code,
      error.message,
      { ...error.headers, 'x-request-id': reqId },
      { status, details: error.details },
    );
  };

  const handle = (req: Request, res: Response): void => {
    const tracer = activeTracer();
    if (!tracer) {
      serve(req, res, current()).catch((err: unknown) => fail(req, res, err));
      return;
    }
    void traceMockAnswer(
      tracer,
      req,
      res,
      (span) =>
        serve(req, res, current()).catch((err: unknown) => {
          span.setAttribute('error.type', describeFailure(err).error.code);
          fail(req, res, err);
        }),
      () => routes.get(req),
    );
  };

  // Express's request and response methods (res.json, req.query...) for implementation functions, without its
  // router: it would only walk to the one handler above, and cost a sixth of a plain GET. The classes give every
  // request express's prototypes from its construction instead of an Object.setPrototypeOf per request.
  class MockRequest extends IncomingMessage {}
  class MockResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {}
  Object.setPrototypeOf(MockRequest.prototype, app.request);
  Object.setPrototypeOf(MockResponse.prototype, app.response);
  // The Content-Type an implementation sets goes out as set, without express 5's added charset.
  installContentTypeKeeping(MockResponse.prototype, app.response);

  return {
    IncomingMessage: MockRequest,
    ServerResponse: MockResponse,
    listener(rawReq, rawRes) {
      const req = rawReq as unknown as Request;
      const res = rawRes as unknown as Response;
      // What express's app.handle and router would have set.
      req.res = res;
      res.req = req;
      res.locals = Object.create(null);
      req.originalUrl = req.url;
      req.baseUrl = '';
      req.params = {};
      // Express's helpers (res.sendFile without a callback, res.render) hand their failures to next().
      req.next = (err?: unknown) => {
        if (err) fail(req, res, err);
      };
      handle(req, res);
    },
  };
}
