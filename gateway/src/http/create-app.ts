import express, { type ErrorRequestHandler, type Express, type RequestHandler } from 'express';
import { RestbusError, toTopic, type Logger } from '@restbus/infra';
import type { Forwarder } from '../forward/create-forwarder';
import type { ApiEndpoint } from '../openapi/endpoint';
import { sendError } from './send-error';

export interface AppOptions {
  endpoints: readonly ApiEndpoint[];
  topicPrefix: string;
  basePath: string;
  bodyLimit: number;
  /** Forwards calls over NATS; without it every described endpoint answers 501 (upstream behaviour). */
  forward?: Forwarder;
  /** True when the gateway can serve: the API is loaded and, when forwarding, NATS is connected. */
  isReady: () => boolean;
  logger: Logger;
}

/** Upstream's exact 501 body, kept byte for byte so that easer users see no difference. */
export const NOT_IMPLEMENTED_BODY = JSON.stringify({
  error: 'The endpoint is either not implemented or `operationId` is ignored',
});

const notImplemented: RequestHandler = (_req, res) => {
  res.status(501).type('application/json; charset=utf-8').send(NOT_IMPLEMENTED_BODY);
};

function joinPath(basePath: string, path: string): string {
  return basePath === '/' ? path : `${basePath.replace(/\/+$/, '')}${path}`;
}

/** The gateway's HTTP application: reserved health paths under `/-/`, then one route per described endpoint. */
export function createApp(options: AppOptions): Express {
  const logger = options.logger.child({ component: 'http' });
  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);

  app.get('/-/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/-/ready', (_req, res) => {
    const ready = options.isReady();
    res.status(ready ? 200 : 503).json({ status: ready ? 'ready' : 'not ready' });
  });

  const forward = options.forward;
  const readBody = express.raw({ type: () => true, limit: options.bodyLimit });
  for (const { desc, file } of options.endpoints) {
    const path = joinPath(options.basePath, desc.jsfUri);
    const topic = toTopic(options.topicPrefix, desc.method, desc.uri);
    const handler: RequestHandler = forward ? (req, res) => forward(topic, desc, req, res) : notImplemented;
    try {
      if (forward) app[desc.method](path, readBody, handler);
      else app[desc.method](path, handler);
    } catch (err) {
      throw new RestbusError(
        'OPENAPI_INVALID',
        `${file}: the path "${desc.uri}" cannot be served: ${(err as Error).message}`,
        { cause: err },
      );
    }
  }

  app.use((req, res) => {
    sendError(res, 'NOT_FOUND', `no endpoint matches ${req.method} ${req.path}`);
  });

  const handleError: ErrorRequestHandler = (
    err: { type?: string; status?: number; message?: string },
    req,
    res,
    _next,
  ) => {
    if (err.type === 'entity.too.large') {
      sendError(res, 'BODY_TOO_LARGE', `the request body is larger than ${options.bodyLimit} bytes`);
    } else if (typeof err.status === 'number' && err.status >= 400 && err.status < 500) {
      sendError(res, 'BAD_REQUEST', 'the request cannot be read', err.status);
    } else {
      logger.error({ err, method: req.method, path: req.path }, 'unexpected error');
      sendError(res, 'INTERNAL', 'internal error');
    }
  };
  app.use(handleError);
  return app;
}
