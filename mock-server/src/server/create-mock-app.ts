import { setTimeout as sleep } from 'node:timers/promises';
import { parse as parseCookies } from 'cookie';
import express, { type Express, type Request, type RequestHandler, type Response } from 'express';
import type httpProxy from 'http-proxy';
import { isRestbusError, RestbusError, sendError, type ErrorCode, type Logger } from '@restbus/infra';
import { createBodyParser, hasBody, overrideMethod } from '../request/parse-body';
import { readMockDelay } from '../request/read-mock-delay';
import type { Generation } from './build-generation';

export interface MockAppDeps {
  current(): Generation;
  proxy: httpProxy;
  session: RequestHandler;
  logger: Logger;
  bodyLimit?: string;
}

const runMiddleware = (middleware: RequestHandler, req: Request, res: Response): Promise<void> =>
  new Promise((resolve, reject) => {
    void middleware(req, res, (err?: unknown) => (err ? reject(err as Error) : resolve()));
  });

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
 * folders, then 404. One middleware instead of a stack keeps a plain GET as cheap as a hello world.
 */
export function createMockApp(deps: MockAppDeps): Express {
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
      if (found.route.implemented) await runMiddleware(session, req, res);
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

  app.use((req: Request, res: Response) => {
    serve(req, res, current()).catch((err: unknown) => {
      const failure = describeFailure(err);
      if (failure.code === 'INTERNAL')
        logger.error({ err, method: req.method, url: req.originalUrl }, 'request failed');
      const headers = (err as { headers?: Record<string, string> }).headers;
      sendError(res, failure.code, failure.message, headers, failure.status);
    });
  });
  return app;
}
