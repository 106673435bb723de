import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { Express } from 'express';
import {
  activeTracer,
  logRequestFailure,
  refuseRequest,
  sendError,
  RestbusError,
  STALE_HEADER,
  type Logger,
} from '@restbus/infra';
import type { AnsweredEndpoint, CompiledEndpoint } from '../call/call';
import { createCallAnswers, ERROR_CODE_HEADER, MOCKED_HEADER } from '../answers/create-call-answers';
import { createStreamAnswers, refuseUpgrade } from '../answers/create-stream-answers';
import type { Forwarder } from '../forward/create-forwarder';
import type { GatewayMetrics } from '../observability/create-metrics';
import { createReadiness, type Readiness } from '../observability/readiness';
import { labelMethod } from '../observability/label-call';
import { createCallRecorder } from '../observability/record-call';
import { recordCallFailure, startServerSpan } from '../observability/call-spans';
import { describeTrace, toTraceContext, type TraceContext } from '../observability/trace-context';
import type { ApiEndpoint } from '../openapi/endpoint';
import { createRouteTable, type Lookup, type RouteTable } from '../routing/route-table';
import type { StaticContent, StaticMount } from '../static/create-static-content';
import { createCorsPolicy, type CorsPolicy } from '../http/cors-policy';
import { admitCall } from '../security/admit-call';
import type { CallPolicy } from '../security/call-policy';
import { streamKeyOf, type StreamService } from '../streams/create-stream-service';

// Loaded when first used, not at every start: Express for the reserved paths (their first call), compression (-s),
// the mock (-m), the request checks (--validate), the static content (x-static).
const loadExpress = (): typeof import('express') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first call of a reserved path
  require('express') as typeof import('express');
const loadAdminApp = (): typeof import('../http/create-admin-app') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded on the first call of a reserved path
  require('../http/create-admin-app') as typeof import('../http/create-admin-app');
const loadCompression = (): typeof import('compression') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the mode that uses it
  require('compression') as typeof import('compression');
const loadMockAnswers = (): typeof import('../mock/create-mock-answers') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the mode that uses it
  require('../mock/create-mock-answers') as typeof import('../mock/create-mock-answers');
const loadRequestChecks = (): typeof import('../validation/create-request-validator') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the mode that uses it
  require('../validation/create-request-validator') as typeof import('../validation/create-request-validator');
const loadStaticContent = (): typeof import('../static/create-static-content') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the documents that use it
  require('../static/create-static-content') as typeof import('../static/create-static-content');

/** No `x-static` folder to serve. */
const NO_STATIC_CONTENT: StaticContent = { match: () => undefined, serve: () => undefined };

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
  /** --mockWrites: with -u -m, mock the unsafe methods too when no service answers. */
  mockWrites?: boolean;
  /** easer's -s: compress response bodies as the client accepts. */
  compress?: boolean;
  /** --validate: checks each call against its operation before forwarding (400 REQUEST_INVALID with the problems). */
  validate?: boolean;
  /** --validateUnchecked: operations --validate serves unchecked when their schemas cannot be compiled. */
  validateUnchecked?: readonly string[];
  /** --auth: each secured endpoint's policy (compileSecurity), checked before its calls are answered. */
  policies?: ReadonlyMap<ApiEndpoint, CallPolicy>;
  /** Whether the mock checks credentials are present itself (Prism's check): when --auth is left out. */
  mockChecksCredentials?: boolean;
  /** --authDropCredentials: a verified call's `Authorization` header stays at the gateway. */
  dropCredentials?: boolean;
  /** The event streams (`x-restbus-stream` operations, SSE and WebSocket); without it they answer as any operation. */
  streams?: StreamService;
  /** -w: upgrades under `/socket.io/` are socket.io's, left alone here. */
  socketIo?: boolean;
  metrics: GatewayMetrics;
  logger: Logger;
}

export interface Gateway {
  /** The HTTP request listener. */
  readonly handle: (req: IncomingMessage, res: ServerResponse) => void;
  /**
   * The HTTP server's `upgrade` listener: a WebSocket on a stream operation's path is its stream; any other upgrade
   * (but socket.io's with -w) is answered 400 or 404 on the raw socket and closed.
   */
  readonly upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => void;
  /** The Express app behind the reserved `/-/` paths, built when first asked for (or called). */
  readonly app: Express;
  /**
   * Replaces the served endpoints at once (SIGHUP reload); a call already routed finishes on the old ones. Throws,
   * changing nothing, when an `x-static` folder leads outside the static base path.
   */
  setEndpoints(endpoints: readonly ApiEndpoint[], policies?: ReadonlyMap<ApiEndpoint, CallPolicy>): void;
  /** From now on every response asks the client to close its connection. */
  beginShutdown(): void;
  /** Requests being served. */
  inFlight(): number;
  /** Lowers or raises the largest body accepted. */
  setBodyLimit(bytes: number): void;
  bodyLimit(): number;
}

type Middleware = (req: IncomingMessage, res: ServerResponse, next: () => void) => void;

/**
 * The admin app with `/-/ready` answered first, with what the gateway will do with a call (createReadiness): the
 * admin app's own route says ready or not, and nothing of the mock or of NATS.
 */
function createReservedPaths(admin: Express, readiness: () => Readiness): Express {
  const app = loadExpress()();
  app.disable('x-powered-by');
  app.set('etag', false);
  app.get('/-/ready', (_req, res) => {
    const body = readiness();
    res.status(body.status === 'ready' ? 200 : 503).json(body);
  });
  app.use(admin);
  return app;
}

/**
 * What a page on an allowed origin may read beside the safelisted headers: the gateway's own (the request id, the
 * error code of a bare 501, the mock's mark) and the ones restbus services answer with (the stale mark, the next
 * page, when to retry, where a new record is).
 */
const EXPOSED_HEADERS = [
  'x-request-id',
  ERROR_CODE_HEADER,
  MOCKED_HEADER,
  STALE_HEADER,
  'retry-after',
  'link',
  'location',
];

/** A call's route label: a described path is its template whatever the method (an OPTIONS, a 405). */
function labelRoute(lookup: Lookup, found: CompiledEndpoint | undefined, isStatic: boolean): string {
  if (found) return found.source.model.path;
  if ('template' in lookup) return lookup.template;
  return isStatic ? 'static' : 'unmatched';
}

/** What serving a static file needs of the request it answers. */
interface StaticRequest {
  req: IncomingMessage;
  res: ServerResponse;
  headers: OutgoingHttpHeaders;
  query: string;
  trace: TraceContext;
}

/**
 * The gateway's request listener, composed of the parts: HTTP in, route, then the answer chosen for the endpoint when
 * the routes were built (createCallAnswers). Described endpoints take a lean path (a precompiled route table, no
 * middleware, the request message mostly precomputed); the reserved paths under `/-/` are an Express app
 * (createAdminApp); `x-static` folders are served by createStaticContent.
 */
export function createGateway(options: GatewayOptions): Gateway {
  const { metrics } = options;
  let bodyLimit = options.bodyLimit;
  let shuttingDown = false;
  const logger = options.logger.child({ component: 'http' });
  const cors: CorsPolicy | undefined = options.corsOrigins?.length
    ? createCorsPolicy(options.corsOrigins, EXPOSED_HEADERS)
    : undefined;
  const readiness = createReadiness({
    forwarding: options.forward !== undefined,
    mock: options.mock === true,
    mockWrites: options.mockWrites === true,
    isConnected: options.isConnected,
    isShuttingDown: () => shuttingDown,
  });
  // Built on the first call under `/-/`: a start that is not asked for them does not load Express.
  let reserved: Express | undefined;
  const reservedPaths = (): Express =>
    (reserved ??= createReservedPaths(
      loadAdminApp().createAdminApp({ metrics, isReady: () => readiness().status === 'ready' }),
      readiness,
    ));
  const mock = options.mock ? loadMockAnswers().createMockAnswers() : undefined;
  // How each endpoint's calls are answered is chosen here, once per endpoint, as the routes are built.
  const callAnswers = createCallAnswers({ ...options, mock, bodyLimit: () => bodyLimit, logger });
  const streamAnswers = options.streams
    ? createStreamAnswers({
        streams: options.streams,
        forward: options.forward,
        mock: options.mock === true,
        mockWrites: options.mockWrites === true,
        mockChecksCredentials: options.mockChecksCredentials,
        dropCredentials: options.dropCredentials,
        metrics,
        logger,
      })
    : undefined;
  const answerFor = (endpoint: AnsweredEndpoint) => {
    const ordinary = callAnswers(endpoint);
    return streamAnswers ? streamAnswers.forCalls(endpoint, ordinary) : ordinary;
  };
  const compile = (
    endpoints: readonly ApiEndpoint[],
    policies: ReadonlyMap<ApiEndpoint, CallPolicy> | undefined,
  ): { table: RouteTable; statics: StaticContent; policies?: ReadonlyMap<ApiEndpoint, CallPolicy> } => {
    // x-static operations are served from their folders, never forwarded.
    const forwarded = endpoints.filter((endpoint) => !endpoint.model.static);
    const validation = options.validate
      ? loadRequestChecks().compileRequestChecks(forwarded, { unchecked: options.validateUnchecked })
      : undefined;
    for (const reason of validation?.skipped ?? []) logger.warn({ reason }, 'operation left unvalidated');
    return {
      policies,
      // Routes and their checks in one object: a reload swaps both at once.
      table: createRouteTable(forwarded, { ...options, checks: validation?.checks, policies, answerFor }),
      // serve-static and serve-index are loaded for `x-static` folders, or to check a base path given for them.
      statics:
        options.staticContentBasePath !== undefined || endpoints.some((endpoint) => endpoint.model.static)
          ? loadStaticContent().createStaticContent({
              endpoints,
              baseDir: options.staticContentBasePath ?? '.',
              logger,
            })
          : NO_STATIC_CONTENT,
    };
  };
  let { table, statics, policies } = compile(options.endpoints, options.policies);
  const recorder = createCallRecorder({ metrics, logger });

  /** An x-static folder is its operation's: with --auth its security is checked first, as a forwarded call's is. */
  const serveStatic = (
    mount: StaticMount,
    { req, res, headers, query, trace }: StaticRequest,
    refuse: (error: RestbusError) => void,
  ): void => {
    const policy = policies?.get(mount.endpoint);
    if (!policy) {
      statics.serve(mount, req, res, headers);
      return;
    }
    const served = statics;
    void Promise.resolve(admitCall(policy, { req, query, headers }, { metrics, logger, trace }))
      .then((refusal) => (refusal ? refuse(refusal) : served.serve(mount, req, res, headers)))
      .catch((err: unknown) => {
        logger.error({ err, ...describeTrace(trace) }, 'unexpected failure');
        sendError(res, 'INTERNAL', 'internal error', headers);
      });
  };

  const dispatch = (req: IncomingMessage, res: ServerResponse): void => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    if (path.startsWith('/-/')) {
      reservedPaths()(req, res);
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
    const found = lookup.kind === 'found' ? lookup.endpoint : undefined;
    const route = labelRoute(lookup, found, mount !== undefined);
    const counted = labelMethod(mount ? 'static' : lookup.kind, method);
    const tracer = activeTracer();
    if (tracer) startServerSpan(tracer, trace, req, { method, route: found?.source.model.path, path });
    recorder.track({
      req,
      res,
      path,
      route,
      method: counted,
      operation: found?.source.model,
      topic: found?.topic,
      trace,
      started,
    });
    /** A client's mistake, answered from the shared table and logged as the call server logs its own. */
    const refuse = (error: RestbusError): void => {
      recordCallFailure(trace, error.code);
      logRequestFailure(logger, error, { method, route, path, ...describeTrace(trace) });
      sendError(res, error.code, error.message, { ...headers, ...error.headers });
    };
    if (mount) {
      serveStatic(mount, { req, res, headers, query: mark < 0 ? '' : url.slice(mark + 1), trace }, refuse);
      return;
    }

    switch (lookup.kind) {
      case 'found':
        lookup.endpoint
          .answer({
            endpoint: lookup.endpoint,
            params: lookup.params,
            query: mark < 0 ? '' : url.slice(mark + 1),
            req,
            res,
            headers,
            trace,
            // Set here, so that every call has one shape whether a policy fills it in or not.
            user: undefined,
          })
          .catch((err: unknown) => {
            logger.error({ err, ...describeTrace(trace) }, 'unexpected failure');
            sendError(res, 'INTERNAL', 'internal error', headers);
          });
        return;
      case 'options':
        if (cors?.isPreflight(req)) cors.addPreflightHeaders(req, headers, lookup.allow);
        res.writeHead(204, { ...headers, allow: lookup.allow });
        res.end();
        return;
      case 'method-not-allowed':
        refuse(
          refuseRequest('methodNotAllowed', `${method} is not described for ${path}`, {
            headers: { allow: lookup.allow },
          }),
        );
        return;
      case 'bad-path':
        refuse(refuseRequest('malformedPath'));
        return;
      default:
        refuse(refuseRequest('notFound', `no endpoint matches ${method} ${path}`));
    }
  };

  const upgrade = (req: IncomingMessage, socket: Duplex, head: Buffer): void => {
    const url = req.url ?? '/';
    const mark = url.indexOf('?');
    const path = mark < 0 ? url : url.slice(0, mark);
    // A client gone mid-answer is no failure of the gateway. Node takes its own listener off an upgraded socket, so
    // without this one a reset before ws or engine.io listen would end the process.
    socket.on('error', () => undefined);
    if (options.socketIo && path.startsWith('/socket.io/')) return;
    const trace = toTraceContext(req.headers);
    const headers: OutgoingHttpHeaders = { 'x-request-id': trace.requestId };
    cors?.addHeaders(req, headers);
    const lookup = path.startsWith('/-/') ? ({ kind: 'not-found' } as const) : table.lookup('GET', path);
    if (lookup.kind === 'found' && streamAnswers) {
      streamAnswers
        .upgrade({ ...lookup, query: mark < 0 ? '' : url.slice(mark + 1), req, socket, head, headers, trace })
        .catch((err: unknown) => {
          logger.error({ err, ...describeTrace(trace) }, 'unexpected failure');
          refuseUpgrade(socket, new RestbusError('INTERNAL', 'internal error'), headers);
        });
      return;
    }
    const refusal =
      lookup.kind === 'bad-path'
        ? refuseRequest('malformedPath')
        : lookup.kind === 'not-found'
          ? refuseRequest('notFound', `no endpoint matches ${path}`)
          : refuseRequest('notAsDescribed', `${path} is no event stream: it takes no WebSocket`);
    refuseUpgrade(socket, refusal, headers);
  };

  // Typed as Express middleware, it reads only what Node's own request and response have.
  const compress = options.compress ? (loadCompression()() as Middleware) : undefined;
  const handle = compress
    ? (req: IncomingMessage, res: ServerResponse): void => compress(req, res, () => dispatch(req, res))
    : dispatch;

  return {
    handle,
    upgrade,
    get app() {
      return reservedPaths();
    },
    setEndpoints(endpoints, newPolicies) {
      // One assignment: a call is routed and checked either on the old table or on the new one, never on a mix.
      ({ table, statics, policies } = compile(endpoints, newPolicies));
      mock?.clear();
      // Streams of operations the reload removed (or whose subject or stream changed) end; the others stay open.
      const kept = new Set<string>();
      for (const endpoint of endpoints) {
        const key = streamKeyOf(endpoint.model);
        if (key !== undefined) kept.add(key);
      }
      options.streams?.keepOnly(kept);
    },
    beginShutdown() {
      shuttingDown = true;
    },
    inFlight: () => recorder.inFlight(),
    setBodyLimit(bytes) {
      bodyLimit = bytes;
    },
    bodyLimit: () => bodyLimit,
  };
}
