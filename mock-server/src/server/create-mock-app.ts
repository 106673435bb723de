import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseCookies } from 'cookie';
import { IncomingMessage, ServerResponse } from 'node:http';
import express, { type Request, type RequestHandler, type Response } from 'express';
import type httpProxy from 'http-proxy';
import { isRestbusError, RestbusError, sendError, type ErrorCode, type Logger } from '@restbus/infra';
import { createBodyParser, hasBody, overrideMethod } from '../request/parse-body';
import { readMockDelay } from '../request/read-mock-delay';
import { attachSession } from '../request/attach-session';
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
  bodyLimit?: string;
}

/** Body-parser errors carry a status and a type; everything else unexpected is a 500 without details. */
function describeFailure(err: unknown): { code: ErrorCode; message: string; status?: number } {
  if (isRestbusError(err)) return { code: err.code, message: err.message };
  const failure = err as { status?: number; type?: string; message?: string };
  if (failure.type === 'entity.parse.failed')
    return { code: 'BAD_REQUEST', message: `the JSON body is malformed: ${failure.message}` };
  if (failure.type === 'entity.too.large') return { code: 'BODY_TOO_LARGE', message: 'the request body is too large' };
  if (typeof failure.status === 'number' && failure.status >= 400 && failure.status < 500) {
    return { code: 'BAD_REQUEST', message: failure.message ?? 'bad request', status: failure.status };
  }
  return { code: 'INTERNAL', message: 'internal error' };
}

/**
 * The request pipeline, in the order the issue gives: proxy rules, body parsing and method override (only when a
 * body is there), services (sessions only for implementation functions, the only code that can use them), static
 * folders, then 404. One function instead of a middleware stack keeps a plain GET as cheap as a hello world.
 */
export function createMockApp(deps: MockAppDeps): MockApp {
  const { current, proxy, session, logger } = deps;
  const parseBody = createBodyParser(deps.bodyLimit ?? '10mb');
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

  async function serve(req: Request, res: Response, generation: Generation): Promise<void> {
    const target = generation.proxy.targetOf(req.path);
    if (target) {
      logger.debug({ method: req.method, url: req.originalUrl, target: target.target }, 'forwarding');
      proxy.web(req, res, { target: target.target });
      return;
    }
    if (hasBody(req)) await parseBody(req, res);
    overrideMethod(req);

    const found = generation.services.find(req.method, req.path);
    if ('route' in found) {
      if (!generation.admits(req)) {
        throw Object.assign(new RestbusError('UNAUTHORIZED', 'this service needs the project login'), {
          headers: { 'www-authenticate': `Basic realm=${JSON.stringify(generation.realm)}, charset="UTF-8"` },
        });
      }
      const delay = readMockDelay(req);
      if (delay > 0) await sleep(delay);
      req.params = found.params;
      if (found.route.implemented) await attachSession(session, req, res);
      await found.route.handle(req, res);
      return;
    }
    if (found.allow.length) {
      const allow = [...new Set(found.allow.includes('GET') ? [...found.allow, 'HEAD'] : found.allow)];
      if (req.method === 'OPTIONS') {
        res.writeHead(204, { allow: [...allow, 'OPTIONS'].join(', ') }).end();
        return;
      }
      throw Object.assign(new RestbusError('METHOD_NOT_ALLOWED', `${req.method} is not served at ${req.path}`), {
        headers: { allow: allow.join(', ') },
      });
    }
    if (await generation.statics.serve(req, res)) return;
    throw new RestbusError('NOT_FOUND', `nothing is served at ${req.method} ${req.path}`);
  }

  const handle = (req: Request, res: Response): void => {
    serve(req, res, current()).catch((err: unknown) => {
      const failure = describeFailure(err);
      if (failure.code === 'INTERNAL')
        logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
      const headers = (err as { headers?: Record<string, string> }).headers;
      sendError(res, failure.code, failure.message, headers, failure.status);
    });
  };

  // Express's request and response methods (res.json, req.query...) for implementation functions, without its
  // router: it would only walk to the one handler above, and cost a sixth of a plain GET. The classes give every
  // request express's prototypes from its construction instead of an Object.setPrototypeOf per request.
  class MockRequest extends IncomingMessage {}
  class MockResponse<R extends IncomingMessage = IncomingMessage> extends ServerResponse<R> {}
  Object.setPrototypeOf(MockRequest.prototype, app.request);
  Object.setPrototypeOf(MockResponse.prototype, app.response);

  return {
    IncomingMessage: MockRequest,
    ServerResponse: MockResponse,
    listener(rawReq, rawRes) {
      const req = rawReq as unknown as Request;
      const res = rawRes as unknown as Response;
      // What express's app.handle and router would have set.
      req.res = res;
      res.req = req;
      res.locals = Object.create(null) as Record<string, unknown>;
      req.originalUrl = req.url;
      req.baseUrl = '';
      req.params = {};
      handle(req, res);
    },
  };
}
