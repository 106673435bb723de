import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import compression from 'compression';
import express, { type Express } from 'express';
import { isRestbusError, RestbusError, sendError, type Logger, type ResponseMessage } from '@restbus/infra';
import { toIncomingRequest } from './to-incoming-request';
import type { Forwarder } from '../forward/create-forwarder';
import { sendReply } from './send-reply';
import { answerFromExample } from '../mock/answer-from-example';
import type { GatewayMetrics } from '../observability/create-metrics';
import { toTraceContext, type TraceContext } from '../observability/trace-context';
import type { ApiEndpoint } from '../openapi/endpoint';
import { createRouteTable, type CompiledEndpoint, type RouteTable } from '../routing/route-table';
import { createStaticContent, type StaticContent } from '../static/create-static-content';
import { createCorsPolicy, type CorsPolicy } from './cors-policy';
import { readBody } from './read-body';
import { compileRequestChecks } from '../validation/create-request-validator';

export interface GatewayOptions {
  endpoints: readonly ApiEndpoint[];
  topicPrefix: string;
  basePath: string;
  /** What easer's `x-static` contentPaths are relative to (and must stay inside); the working directory when absent. */
  staticContentBasePath?: string;
  bodyLimit: number;
  /** Forwards calls over NATS; without it every described endpoint answers 501 (upstream behaviour). */
  forward?: Forwarder;
  /** True when NATS is connected (or when not forwarding). */
  isConnected: () => boolean;
  /** Allowed CORS origins (`*` for any); no CORS headers when absent. */
  corsOrigins?: readonly string[];
  /** easer's -m: answer from the operation's example without forwarding, or when no service answers. */
  mock?: boolean;
  /** easer's -s: compress response bodies as the client accepts. */
  compress?: boolean;
  /** --validate: checks each call against its operation before forwarding (400 REQUEST_INVALID with the problems). */
  validate?: boolean;
  metrics: GatewayMetrics;
  logger: Logger;
}

export interface Gateway {
  /** The HTTP request listener. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /** The Express app behind the reserved `/-/` paths. */
  readonly app: Express;
  /**
   * Replaces the served endpoints at once (SIGHUP reload); a call already routed finishes on the old ones. Throws,
   * changing nothing, when an `x-static` folder leads outside the static base path.
   */
  setEndpoints(endpoints: readonly ApiEndpoint[]): void;
  /** From now on every response asks the client to close its connection. */
  beginShutdown(): void;
  /** Requests being served. */
  inFlight(): number;
  /** Lowers or raises the largest body accepted. */
  setBodyLimit(bytes: number): void;
  bodyLimit(): number;
}

/** Upstream's exact 501 body, kept byte for byte so that easer users see no difference. */
type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/** Failures that mean no service answered the call: with -m, the example answers instead. */
const NO_SERVICE = new Set(['NO_RESPONDER', 'UPSTREAM_TIMEOUT', 'NATS_UNAVAILABLE']);

/** easer's message for a described endpoint it does not forward, kept word for word (clients match on it). */
export const NOT_IMPLEMENTED_MESSAGE = 'The endpoint is either not implemented or `operationId` is ignored';

/**
 * The gateway's request listener. Described endpoints take a lean path (a precompiled route table, no middleware,
 * the request message mostly precomputed); the reserved paths under `/-/` (health, readiness, metrics) are an
 * Express app, where per-request cost does not matter.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { forward, metrics } = options;
  let bodyLimit = options.bodyLimit;
  const logger = options.logger.child({ component: 'http' });
  const cors: CorsPolicy | undefined = options.corsOrigins?.length ? createCorsPolicy(options.corsOrigins) : undefined;
  const compile = (endpoints: readonly ApiEndpoint[]): { table: RouteTable; statics: StaticContent } => {
    // x-static operations are served from their folders, never forwarded.
    const forwarded = endpoints.filter((endpoint) => !endpoint.static);
    const validation = options.validate ? compileRequestChecks(forwarded) : undefined;
    for (const reason of validation?.skipped ?? []) logger.warn({ reason }, 'operation left unvalidated');
    return {
      // Routes and their checks in one object: a reload swaps both at once.
      table: createRouteTable(forwarded, { ...options, checks: validation?.checks }),
      statics: createStaticContent({ endpoints, baseDir: options.staticContentBasePath ?? '.', logger }),
    };
  };
  let { table, statics } = compile(options.endpoints);
  let inFlight = 0;
  let shuttingDown = false;

  const app = express();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/-/health', (_req, res) => {
    res.json({ status: 'ok' });
  });
  app.get('/-/ready', (_req, res) => {
    const isReady = !shuttingDown && options.isConnected();
    res.status(isReady ? 200 : 503).json({ status: isReady ? 'ready' : 'not ready' });
  });
  app.get('/-/metrics', async (_req, res) => {
    res.type(metrics.registry.contentType).send(await metrics.registry.metrics());
  });
  app.use((req, res) => {
    sendError(res, 'NOT_FOUND', `no endpoint matches ${req.method} ${req.path}`);
  });

  function finish(
    res: ServerResponse,
    req: IncomingMessage,
    path: string,
    route: string,
    topic: string | undefined,
    trace: TraceContext,
    started: number,
  ): void {
    inFlight--;
    metrics.inFlight.dec();
    const ms = performance.now() - started;
    metrics.observe(route, req.method ?? '', res.statusCode, ms / 1000);
    logger.info(
      {
        reqId: trace.requestId,
        traceId: trace.traceId,
        method: req.method,
        path,
        status: res.statusCode,
        ms: Math.round(ms * 1000) / 1000,
        topic,
      },
      'request',
    );
  }

  /** Answers from the operation's example; false when it has none. */
  function answerExample(
    endpoint: CompiledEndpoint,
    req: IncomingMessage,
    res: ServerResponse,
    headers: OutgoingHttpHeaders,
  ): boolean {
    try {
      const reply = answerFromExample(endpoint.desc, req.headers);
      if (reply) sendReply(res, reply, headers);
      return reply !== undefined;
    } catch (err) {
      if (!isRestbusError(err)) throw err;
      sendError(res, err.code, err.message, headers);
      return true;
    }
  }

  async function serve(
    endpoint: CompiledEndpoint,
    params: Record<string, string>,
    query: string,
    req: IncomingMessage,
    res: ServerResponse,
    headers: OutgoingHttpHeaders,
    trace: TraceContext,
  ): Promise<void> {
    if (!forward) {
      if (options.mock && answerExample(endpoint, req, res, headers)) return;
      sendError(res, 'NOT_IMPLEMENTED', NOT_IMPLEMENTED_MESSAGE, headers);
      return;
    }
    let reply: ResponseMessage;
    try {
      const request = toIncomingRequest(req, query, params, await readBody(req, bodyLimit));
      const problems = endpoint.validate?.(request);
      if (problems?.length) {
        sendError(res, 'REQUEST_INVALID', 'the request does not match the API description', headers, {
          details: { problems },
        });
        return;
      }
      reply = await forward(endpoint, request, trace);
    } catch (err) {
      const error = isRestbusError(err)
        ? err
        : new RestbusError('INTERNAL', 'the request could not be forwarded', { cause: err });
      if (error.code !== 'BODY_TOO_LARGE' && error.code !== 'BAD_REQUEST') metrics.natsError(error.code);
      const level = error.code === 'INTERNAL' ? 'error' : 'warn';
      logger[level](
        { err, reqId: trace.requestId, traceId: trace.traceId, topic: endpoint.topic, code: error.code },
        'call not forwarded',
      );
      // As easer did with -m and -u: while no service answers, the description's example does.
      if (options.mock && NO_SERVICE.has(error.code) && answerExample(endpoint, req, res, headers)) return;
      sendError(res, error.code, error.message, headers);
      return;
    }
    try {
      sendReply(res, reply, headers);
    } catch (err) {
      metrics.natsError('BAD_REPLY');
      logger.warn(
        { err, reqId: trace.requestId, traceId: trace.traceId, topic: endpoint.topic },
        'the reply cannot be written as an HTTP response',
      );
      // sendReply says what is wrong (status, which header, the body); anything else is not the reply's to explain.
      const message = isRestbusError(err) ? err.message : 'the reply cannot be written as an HTTP response';
      sendError(res, 'BAD_REPLY', message, headers);
    }
  }

  const compress = options.compress ? (compression() as unknown as Middleware) : undefined;

  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    if (path.startsWith('/-/')) {
      app(req, res);
      return;
    }
    const started = performance.now();
    const trace = toTraceContext(req.headers);
    const headers: OutgoingHttpHeaders = { 'x-request-id': trace.requestId };
    if (shuttingDown) headers.connection = 'close';
    const method = req.method ?? 'GET';
    cors?.addHeaders(req, headers);
    const lookup = table.lookup(method, path);
    // A described, forwarded operation wins over a static folder whose path it lies under.
    const mount = lookup.kind === 'not-found' ? statics.match(path) : undefined;
    inFlight++;
    metrics.inFlight.inc();
    const route = lookup.kind === 'found' ? lookup.endpoint.desc.uri : mount ? 'static' : 'unmatched';
    const topic = lookup.kind === 'found' ? lookup.endpoint.topic : undefined;
    res.once('close', () => finish(res, req, path, route, topic, trace, started));
    if (mount) {
      statics.serve(mount, req, res, headers);
      return;
    }

    switch (lookup.kind) {
      case 'found':
        serve(lookup.endpoint, lookup.params, mark < 0 ? '' : url.slice(mark + 1), req, res, headers, trace).catch(
          (err: unknown) => {
            logger.error({ err, reqId: trace.requestId }, 'unexpected failure');
            sendError(res, 'INTERNAL', 'internal error', headers);
          },
        );
        return;
      case 'options':
        if (cors?.isPreflight(req)) cors.addPreflightHeaders(req, headers, lookup.allow);
        res.writeHead(204, { ...headers, allow: lookup.allow });
        res.end();
        return;
      case 'method-not-allowed':
        sendError(res, 'METHOD_NOT_ALLOWED', `${method} is not described for ${path}`, {
          ...headers,
          allow: lookup.allow,
        });
        return;
      case 'bad-path':
        sendError(res, 'BAD_REQUEST', 'the path is not validly percent-encoded', headers);
        return;
      default:
        sendError(res, 'NOT_FOUND', `no endpoint matches ${method} ${path}`, headers);
    }
  };

  const handle = compress
    ? (req: IncomingMessage, res: ServerResponse): void => compress(req, res, () => dispatch(req, res))
    : dispatch;

  return {
    handle,
    app,
    setEndpoints(endpoints) {
      // One assignment: a call is routed and checked either on the old table or on the new one, never on a mix.
      ({ table, statics } = compile(endpoints));
    },
    beginShutdown() {
      shuttingDown = true;
    },
    inFlight: () => inFlight,
    setBodyLimit(bytes) {
      bodyLimit = bytes;
    },
    bodyLimit: () => bodyLimit,
  };
}
