import { randomBytes } from 'node:crypto';
import { ServerResponse } from 'node:http';
import session from 'express-session';
import httpProxy from 'http-proxy';
import {
  coalesceRuns,
  createHttpServer,
  createLogger,
  type HttpLimits,
  isRestbusError,
  listenHttpServer,
  type Logger,
  logRequestFailure,
  readErrorCode,
  RestbusError,
  sendError,
} from '@restbus/infra';
import { loadProject, type Project } from '@restbus/project-format';
import { BoundedSessionStore } from '../request/bounded-session-store';
import { buildGeneration, type Generation } from './build-generation';
import { createMockApp } from './create-mock-app';
import { watchProject } from './watch-project';
import { stripUpgrade } from '../proxy/strip-upgrade';

export interface MockServerOptions {
  projectDir: string;
  environment?: string;
  /** Default: the environment's `port`, else the project's `servicePort`, else 3007. 0 picks a free port. */
  port?: number;
  host?: string;
  logger?: Logger;
  /** Hot reload on file changes (default true). */
  watch?: boolean;
  /** Signs the session cookie. Default: the environment's `sessionSecret`, else random per start. */
  sessionSecret?: string;
  /** Largest body an implementation function gets, in bytes (default 1 MiB); larger ones answer 413. */
  bodyLimit?: number;
  /** Timeouts and connection cap of the HTTP server (infra's DEFAULT_HTTP_LIMITS where left out). */
  limits?: Partial<HttpLimits>;
  /**
   * An implementation that cannot be loaded or found, or a mock file that is missing or invalid, answers 500
   * (IMPLEMENTATION_UNAVAILABLE, MOCK_UNAVAILABLE) instead of the OK mock file or the descriptor (default false).
   */
  strict?: boolean;
  /** Check requests against the descriptors (default: the environment's `validate`). */
  validate?: boolean;
  /**
   * With validation: routes (`METHOD /uriTemplate`) served with their bodies unchecked when their request schema cannot
   * be used. Any other such route keeps the server from starting (and a reload from swapping in).
   */
  validateUnchecked?: readonly string[];
  /**
   * What all stateful collections and sessions may hold together, in estimated bytes of memory (default 64 MiB);
   * past it the sessions used longest ago give way.
   */
  stateMemory?: number;
  /** Between two events of a mocked event stream, in ms (default 1000). */
  eventInterval?: number;
  /**
   * Prints `Express server listening on port <N>` on stdout once listening, as upstream rest-tool's server did:
   * test harnesses written for it wait for that line (default true).
   */
  announce?: boolean;
}

/** The line upstream rest-tool's mock server printed once listening. */
const listeningLine = (port: number): string => `Express server listening on port ${port}\n`;

export interface MockServer {
  url: string;
  port: number;
  project(): Project;
  /**
   * Loads the project again; on failure the last good version keeps serving and the problems are returned. Calls made
   * while a load runs share one queued load.
   */
  reload(): Promise<{ ok: true } | { ok: false; problems: string }>;
  close(): Promise<void>;
}

/** Loads a project and serves it; the only failure left after this resolves is a broken edit, which is logged. */
export async function startMockServer(options: MockServerOptions): Promise<MockServer> {
  const logger = (options.logger ?? createLogger({ name: 'restbus-mock' })).child({ component: 'mock-server' });
  const load = async (): Promise<Generation> => {
    const project = await loadProject({ projectDir: options.projectDir, environment: options.environment });
    const built = await buildGeneration(project, logger, {
      strict: options.strict,
      validate: options.validate,
      validateUnchecked: options.validateUnchecked,
      stateMemory: options.stateMemory,
      eventInterval: options.eventInterval,
    });
    // Validation asked for and a body it cannot check: serving would let those bodies through unsaid.
    if (built.schemaProblems.length) throw new RestbusError('PROJECT_INVALID', built.schemaProblems.join('\n'));
    return built;
  };
  const report = (loaded: Generation): void => {
    for (const warning of [...loaded.project.warnings, ...loaded.warnings, ...loaded.uncheckedBodies]) {
      logger.warn(warning);
    }
    for (const problem of [...loaded.problems, ...loaded.missingPackages]) {
      if (loaded.strict) logger.error(`${problem}: its services answer 500 (--strict)`);
      else {
        logger.warn(
          `${problem}: its services answer with their OK mock file, else their descriptor, and an X-Mock-Warning header`,
        );
      }
    }
  };
  let generation = await load();
  report(generation);
  const environment = generation.project.environment;

  const proxy = httpProxy.createProxyServer({
    xfwd: true,
    proxyTimeout: environment.proxyTimeout ?? 30_000,
  });
  proxy.on('proxyReq', stripUpgrade);
  proxy.on('error', (err, req, res) => {
    const failure = new RestbusError(
      'PROXY_FAILED',
      `the remote service did not answer (${readErrorCode(err) ?? err.message})`,
    );
    // A remote that is down is an outage, not our failure: one warning with its code, no stack.
    logRequestFailure(logger, failure, { method: req.method, path: req.url });
    if (res instanceof ServerResponse) sendError(res, failure.code, failure.message);
    else res.destroy();
  });
  const secret =
    options.sessionSecret ??
    (typeof environment.sessionSecret === 'string' ? environment.sessionSecret : randomBytes(32).toString('hex'));
  const sessions = session({
    name: 'connect.sid',
    secret,
    store: new BoundedSessionStore(),
    resave: false,
    // Only a session that code wrote to is stored and gets a cookie: cookie-less clients cost no memory.
    saveUninitialized: false,
    cookie: { path: '/', httpOnly: true },
  });
  const app = createMockApp({
    current: () => generation,
    proxy,
    session: sessions,
    logger,
    bodyLimit: options.bodyLimit ?? 1024 * 1024,
  });
  // Bounded in time and connections, and Node's own answers (bad request line, 431, no Host) are JSON too.
  const server = createHttpServer(app.listener, {
    IncomingMessage: app.IncomingMessage,
    ServerResponse: app.ServerResponse,
    limits: options.limits,
  });

  // A burst of file events or calls costs at most two loads: one at a time, one queued that later calls join, so
  // each call is still answered by a load that started after it (and saw the files as they were when it called).
  const reload: MockServer['reload'] = coalesceRuns(async () => {
    try {
      const fresh = await load();
      // A module that loaded before and fails now was most likely caught mid-save, or broken by the edit: the
      // last good version keeps serving rather than answering 500 for its services.
      const broken = fresh.failedModules.filter((name) => !generation.failedModules.includes(name));
      if (broken.length) {
        const lines = [...fresh.problems, ...fresh.missingPackages].filter((problem) =>
          broken.some((name) => problem.startsWith(`server/${name}.js:`)),
        );
        throw new RestbusError('PROJECT_INVALID', lines.join('\n'));
      }
      report(fresh);
      if (fresh.project.environment.port !== environment.port) {
        logger.warn('the port changed in server/config.yml: it takes effect on the next start');
      }
      generation = fresh;
      logger.info({ services: fresh.project.services.length }, 'project reloaded');
      return { ok: true as const };
    } catch (err) {
      const problems = isRestbusError(err) ? err.message : String(err);
      logger.error({ problems }, 'the project has errors: the last good version keeps serving');
      return { ok: false as const, problems };
    }
  });
  const stopWatching =
    options.watch === false ? () => undefined : watchProject(generation.project.root, () => void reload(), logger);

  const { servicePort } = generation.project.config;
  const port = options.port ?? environment.port ?? servicePort ?? 3007;
  // Name the setting the port came from, so that the way out of a taken port is the one that applies.
  const portSetting =
    options.port === undefined && environment.port !== undefined
      ? `port of the ${environment.name} environment in server/config.yml`
      : options.port === undefined && servicePort !== undefined
        ? 'servicePort in config.yml'
        : undefined;
  const howToChoose = (other: number): string =>
    portSetting ? `--port ${other}, or change the ${portSetting}` : `--port ${other}`;
  const listening = await listenHttpServer(server, { port, host: options.host, howToChoose }).catch((err: unknown) => {
    stopWatching();
    proxy.close();
    throw err;
  });
  const { url } = listening;
  logger.info({ url, environment: environment.name, services: generation.project.services.length }, 'serving');
  if (options.announce !== false) process.stdout.write(listeningLine(listening.port));

  return {
    url,
    port: listening.port,
    project: () => generation.project,
    reload,
    async close() {
      stopWatching();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      proxy.close();
    },
  };
}
