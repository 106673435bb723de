import { ServerResponse, type IncomingMessage } from 'node:http';
import httpProxy from 'http-proxy';
import {
  createHttpServer,
  createLogger,
  type HttpLimits,
  listenHttpServer,
  type Logger,
  readErrorCode,
  readErrorMessage,
  RestbusError,
  sendError,
} from '@restbus/infra';
import { loadProject, type Project } from '@restbus/project-format';
import { normalisePath } from '../request/normalise-path';
import { findTargetProblem } from '../server/mock-program';
import { chooseRequestHeaders, chooseResponseHeaders } from './choose-headers';
import { createRouteRegistry, type RoutePlan } from './route-registry';
import { RECORD_BODY_LIMIT, toMockBody } from './to-mock-body';
import { addToService, writeNewService, type RecordedCall, type RecordingTarget } from './write-recording';
import { stripUpgrade } from '../proxy/strip-upgrade';

export interface RecorderOptions {
  projectDir: string;
  environment?: string;
  /** The project, when the caller has loaded it already. */
  project?: Project;
  /** `http://host:port` to forward to; default: the environment's `record.target`. */
  target?: string;
  /** Record Authorization, Cookie, Set-Cookie and the like too (default: the environment's `record.recordSecrets`). */
  recordSecrets?: boolean;
  /** Default: the environment's `port`, else the project's `servicePort`, else 3007. 0 picks a free port. */
  port?: number;
  host?: string;
  limits?: Partial<HttpLimits>;
  logger?: Logger;
}

export interface Recorder {
  url: string;
  port: number;
  /** The target, without any user name or password it held. */
  target: string;
  /** The files written so far, relative to the project root, in order (config.yml once per new service). */
  written(): string[];
  /** Stops listening, waits for the recordings under way, and logs what was written. */
  close(): Promise<void>;
}

/** The target as logs and descriptors show it: no user name or password, no trailing slash. */
function describeTarget(target: string): string {
  const url = new URL(target);
  url.username = '';
  url.password = '';
  return url.href.replace(/\/$/, '');
}

/** The path of a request URL, normalised as the mock server matches it, or undefined when it cannot be matched. */
function pathOf(req: IncomingMessage): string | undefined {
  const raw = (req.url ?? '/').split('?')[0];
  if (!raw.startsWith('/')) return undefined;
  try {
    const { path, hasEncodedSeparator } = normalisePath(raw);
    return hasEncodedSeparator ? undefined : path;
  } catch {
    return undefined;
  }
}

/** The target record mode forwards to: `--target`, else the environment's `record.target`; refused when neither is a URL. */
function readRecordTarget(flag: string | undefined, environment: Project['environment']): string {
  const given = flag ?? environment.record?.target;
  if (given === undefined) {
    throw new RestbusError(
      'CONFIG_INVALID',
      `record mode needs a target: --target <url>, or record: { target: <url> } in the ${environment.name} environment of server/config.yml`,
    );
  }
  const problem = findTargetProblem(given);
  if (problem) {
    const where = flag === undefined ? `server/config.yml: environment ${environment.name}: record.target` : '--target';
    throw new RestbusError(
      'CONFIG_INVALID',
      `invalid configuration: ${where}: ${problem} (got ${JSON.stringify(given)})`,
    );
  }
  return given;
}

/**
 * Record mode: every call is forwarded to the target (method, path, query, headers, body) and answered with what
 * the target answered, streamed. A 2xx answer to GET, PUT, POST or DELETE under serviceUrlPrefix that no service
 * of the project describes is written into the project: a method added to the service whose uriTemplate matches
 * the path, else a new service whose uriTemplate has a parameter for every id-like segment. Files are created,
 * never replaced (service.yml and config.yml are edited in place); recordings run one at a time, and a route is
 * recorded once even when identical calls overlap.
 */
export async function startRecorder(options: RecorderOptions): Promise<Recorder> {
  const logger = (options.logger ?? createLogger({ name: 'restbus-mock' })).child({ component: 'recorder' });
  const project =
    options.project ?? (await loadProject({ projectDir: options.projectDir, environment: options.environment }));
  const { environment } = project;
  const settings = environment.record;
  const given = readRecordTarget(options.target, environment);
  const target = describeTarget(given);
  const recordSecrets = options.recordSecrets === true || settings?.recordSecrets === true;
  const registry = createRouteRegistry(project);
  const root = environment.restapiRoot;
  const written: string[] = [];
  const recorded: string[] = [];
  /** Route keys being recorded or recorded: a second call of the route is only forwarded. */
  const claimed = new Set<string>();
  let queue: Promise<void> = Promise.resolve();

  const writeTarget = (): RecordingTarget => ({
    root,
    servicesDir: registry.servicesDir,
    origin: `Recorded from ${target} on ${new Date().toISOString().slice(0, 10)}`,
    wrote(file, action) {
      written.push(file);
      logger.info({ file, action }, `${action} ${file}`);
    },
  });

  /** Writes one recorded call; runs on the queue, so the registry is up to date and no two writes overlap. */
  async function record(
    route: string,
    method: string,
    path: string,
    claim: string,
    call: () => RecordedCall | string,
  ): Promise<void> {
    // Planned again: a recording that ran before this one may have described the route meanwhile.
    const plan = registry.plan(method, path);
    if (plan.kind === 'described' || plan.kind === 'outside') return;
    const made = call();
    if (typeof made === 'string') {
      logger.warn({ route }, `${route}: not recorded: ${made}`);
      claimed.delete(claim);
      return;
    }
    try {
      if (plan.kind === 'add') {
        if (await addToService(plan, made, writeTarget())) {
          recorded.push(`${method} ${plan.service.uriTemplate}`);
          logger.info(
            { route, service: plan.service.entry },
            `recorded ${route} as ${method} ${plan.service.uriTemplate}`,
          );
        }
        registry.add({ ...plan.service, methods: new Set([method]) });
      } else {
        const service = await writeNewService(plan, made, writeTarget());
        registry.add(service);
        recorded.push(`${method} ${service.uriTemplate}`);
        logger.info({ route, service: service.entry }, `recorded ${route} as ${method} ${service.uriTemplate}`);
      }
    } catch (err) {
      claimed.delete(claim);
      const message = readErrorMessage(err);
      logger.error({ route, err: message }, `${route}: not recorded: ${message}`);
    }
  }

  /** Watches an answer on its way to the client, and queues its recording once it has arrived whole. */
  function observe(proxyRes: IncomingMessage, req: IncomingMessage, res: ServerResponse): void {
    // A target that breaks off mid-answer: the client's answer is cut too, so it cannot pass for a whole one.
    proxyRes.on('error', () => res.destroy());
    proxyRes.once('close', () => {
      if (!proxyRes.complete) res.destroy();
    });
    const method = req.method ?? 'GET';
    const path = pathOf(req);
    const route = `${method} ${path ?? req.url}`;
    if (path === undefined) return;
    const plan: RoutePlan = registry.plan(method, path);
    if (plan.kind === 'described') {
      logger.debug({ route, service: plan.service.entry }, `${route}: described by the project, forwarded only`);
      return;
    }
    if (plan.kind === 'outside') {
      logger.debug({ route }, `${route}: forwarded only: ${plan.reason}`);
      return;
    }
    const status = proxyRes.statusCode ?? 0;
    if (status < 200 || status > 299 || status === 206) {
      logger.info(
        { route, status },
        `${route}: not recorded: the target answered ${status} (only whole 2xx answers are recorded)`,
      );
      return;
    }
    if (claimed.has(plan.key)) {
      logger.debug({ route }, `${route}: being recorded from another call, forwarded only`);
      return;
    }
    claimed.add(plan.key);
    const chunks: Buffer[] = [];
    let size = 0;
    proxyRes.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size <= RECORD_BODY_LIMIT + 1) chunks.push(chunk);
      else chunks.length = 0;
    });
    let ended = false;
    proxyRes.once('end', () => {
      ended = true;
      const requestHeaders = chooseRequestHeaders(req.headers, recordSecrets);
      const responseHeaders = chooseResponseHeaders(proxyRes.headers, recordSecrets);
      const withheld = [...new Set([...requestHeaders.withheld, ...responseHeaders.withheld])];
      const call = (): RecordedCall | string => {
        if (size > RECORD_BODY_LIMIT) {
          return `the body has ${size} bytes, more than the ${RECORD_BODY_LIMIT} a recorded body may have`;
        }
        const body = toMockBody(
          Buffer.concat(chunks),
          proxyRes.headers['content-type'],
          proxyRes.headers['content-encoding'],
        );
        if (body.kind === 'refused') return body.reason;
        if (withheld.length) {
          logger.info({ route, withheld }, `${route}: left out ${withheld.join(', ')} (--record-secrets records them)`);
        }
        return {
          method,
          status,
          request: requestHeaders,
          response: responseHeaders,
          body:
            body.kind === 'file'
              ? {
                  extension: body.extension,
                  data: body.data,
                  json: body.json,
                  array: body.json && body.data[0] === 0x5b,
                }
              : undefined,
        };
      };
      queue = queue.then(() => record(route, method, path, plan.key, call));
    });
    // Cut short (the target or the client went away): nothing is recorded, and a later call may record the route.
    proxyRes.once('close', () => {
      if (!ended) claimed.delete(plan.key);
    });
  }

  const proxy = httpProxy.createProxyServer({
    target: given,
    // The target sees its own host name (a virtual host, a TLS name) and where the call came from.
    changeOrigin: true,
    xfwd: true,
    proxyTimeout: environment.proxyTimeout ?? 30_000,
  });
  proxy.on('proxyReq', stripUpgrade);
  proxy.on('proxyRes', observe);
  // Failures reach each call's callback below; an error event without one would otherwise stop the program.
  proxy.on('error', (err) => logger.debug({ err: err.message }, 'proxy error'));
  const server = createHttpServer(
    (req, res) => {
      // http-proxy hands back the response it was given, typed as it may be for a WebSocket: a Socket.
      proxy.web(req, res, {}, (err, _req, answer) => {
        const code = readErrorCode(err) ?? err.message;
        logger.warn({ method: req.method, url: req.url, code }, `the target ${target} did not answer: ${code}`);
        if (answer instanceof ServerResponse) {
          sendError(
            answer,
            'PROXY_FAILED',
            `the record target ${target} did not answer (${code}); nothing was recorded`,
          );
        } else answer.destroy();
      });
    },
    { limits: options.limits },
  );

  const port = options.port ?? environment.port ?? project.config.servicePort ?? 3007;
  const { url, port: listeningPort } = await listenHttpServer(server, {
    port,
    host: options.host,
    howToChoose: (other) => `--port ${other}`,
  }).catch((err: unknown) => {
    proxy.close();
    throw err;
  });
  logger.info(
    { url, target, environment: environment.name, recordSecrets, services: project.services.length },
    'recording',
  );

  return {
    url,
    port: listeningPort,
    target,
    written: () => [...written],
    async close() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      proxy.close();
      await queue;
      logger.info(
        { routes: recorded, files: written },
        recorded.length
          ? `recorded ${recorded.length} route${recorded.length === 1 ? '' : 's'}, ${written.length} file${written.length === 1 ? '' : 's'} written: ${[...new Set(written)].join(', ')}`
          : 'recorded nothing',
      );
    },
  };
}
