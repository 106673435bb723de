import { writeFile } from 'node:fs/promises';
import type { NatsConnection } from 'nats';
import type { Logger } from 'pino';
import {
  inboxPrefixSetting,
  logFormatSetting,
  logLevelSetting,
  natsConnectionSettings,
  toNatsLinkOptions,
  topicPrefixSetting,
  type NatsConnectionConfig,
} from '../config/common-settings';
import { loadConfig, type SettingSpec } from '../config/load-config';
import { RestbusError } from '../errors/restbus-error';
import { createLogger, type LogFormat } from '../logging/create-logger';
import { startTracing } from '../tracing/start-tracing';
import { readTracingSettings } from '../tracing/tracing-settings';
import { createNatsLink } from '../nats/create-nats-link';
import { startResponder, type Route } from '../nats/start-responder';
import { adaptHandler, type Handler } from './adapt-handler';
import { guardUnhandledRejections } from './handler-scope';

/** The settings every service has. */
export interface ServiceConfig extends NatsConnectionConfig {
  topicPrefix: string;
  inboxPrefix: string;
  logLevel: string;
  logFormat?: LogFormat;
  handlerTimeout: number;
}

/**
 * An endpoint the executive serves: the gateway's method and path template, and optionally its name, subject and
 * `$SRV.INFO` metadata (a served contract gives its operations' own; see startResponder's Route).
 */
export type Endpoint = Omit<Route, 'handle'>;

export interface ServiceContext<C> {
  readonly config: Readonly<ServiceConfig & C>;
  readonly logger: Logger;
  readonly nc: NatsConnection;
  /**
   * Registers the handler of an endpoint; the executive binds all of them, as one NATS service named after the
   * executive, once every startup function ran.
   */
  register(endpoint: Endpoint, handler: Handler): void;
}

export type Shutdown = () => void | Promise<void>;

/** One step of starting a service; what it returns is run, in reverse order, when the service stops. */
export type Startup<C> = (context: ServiceContext<C>) => void | Shutdown | Promise<void | Shutdown>;

export interface ExecutiveOptions<C> {
  name: string;
  version: string;
  description: string;
  /** Settings of this service beside the common ones (NATS connection, topic prefix, log level and format, handler timeout). */
  settings?: readonly SettingSpec[];
  startups: ReadonlyArray<Startup<C>>;
  argv: readonly string[];
  env: Readonly<Record<string, string | undefined>>;
  /** Whether standard output is a terminal: pretty log lines unless --log-format says otherwise. */
  terminal?: boolean;
  /** A logger to use instead of the one made from the config (tests). */
  logger?: Logger;
}

export interface Executive<C> {
  /** Runs config, logger, NATS connection, the startup functions, then binds the handlers. */
  start(): Promise<ServiceContext<C> & { subjects: readonly string[]; id: string }>;
  /** Runs the shutdown functions in reverse order of start, once; safe to call while starting. */
  stop(): Promise<void>;
}

const handlerTimeoutSetting: SettingSpec = {
  key: 'handlerTimeout',
  flags: '--handlerTimeout <ms>',
  env: 'HANDLER_TIMEOUT_MS',
  description: 'a handler that has not called back by then is answered 500 (below the gateway timeout)',
  schema: { type: 'integer', minimum: 1, maximum: 600000, default: 1500 },
};

/** The settings every service has, before its own (`ExecutiveOptions.settings`). */
export const serviceSettings: readonly SettingSpec[] = [
  ...natsConnectionSettings,
  topicPrefixSetting,
  inboxPrefixSetting,
  logLevelSetting,
  logFormatSetting,
  handlerTimeoutSetting,
];

/**
 * The application container of a restbus service, after the upstream npac executive: an ordered list of startup
 * functions, each able to register endpoint handlers and to return its shutdown; the handlers are bound as one
 * NATS service (queue group, `$SRV` discovery and stats) on `<topicPrefix>.<method>_<uri>`.
 */
export function createExecutive<C = object>(options: ExecutiveOptions<C>): Executive<C> {
  const shutdowns: Shutdown[] = [];
  let stopping: Promise<void> | undefined;

  const checkNotStopped = (): void => {
    if (stopping) throw new RestbusError('INTERNAL', `${options.name} was stopped while starting`);
  };

  return {
    async start() {
      const config = loadConfig<ServiceConfig & C>(
        {
          name: options.name,
          version: options.version,
          description: options.description,
          settings: [...serviceSettings, ...(options.settings ?? [])],
        },
        { argv: options.argv, env: options.env },
      );
      const natsLinkOptions = toNatsLinkOptions(config);
      const logger =
        options.logger ??
        createLogger({
          name: options.name,
          level: config.logLevel,
          format: config.logFormat,
          terminal: options.terminal,
        });
      shutdowns.push(guardUnhandledRejections(logger));
      // Before anything that makes spans; stopped last, so that the spans of the last calls still leave.
      const tracing = startTracing(readTracingSettings(options.env), {
        service: options.name,
        version: options.version,
        logger,
      });
      shutdowns.push(() => tracing.shutdown());
      const link = createNatsLink({
        ...natsLinkOptions,
        name: options.name,
        inboxPrefix: config.inboxPrefix,
        logger,
      });
      shutdowns.push(() => link.drain());
      const nc = await link.ready();
      checkNotStopped();

      const routes: Route[] = [];
      const context: ServiceContext<C> = {
        config,
        logger,
        nc,
        register(endpoint, handler) {
          const handlerLogger = logger.child({ component: 'handler', method: endpoint.method, uri: endpoint.uri });
          routes.push({ ...endpoint, handle: adaptHandler(handler, config.handlerTimeout, handlerLogger) });
        },
      };
      for (const startup of options.startups) {
        const shutdown = await startup(context);
        if (typeof shutdown === 'function') shutdowns.push(shutdown);
        checkNotStopped();
      }
      const responder = await startResponder({
        nc,
        logger,
        name: options.name,
        version: options.version,
        description: options.description,
        topicPrefix: config.topicPrefix,
        inboxPrefix: config.inboxPrefix,
        routes,
      });
      shutdowns.push(() => responder.stop());
      // The container health check pings this very instance ($SRV.PING.<name>.<id>), not just any replica.
      if (options.env.RESTBUS_ID_FILE) await writeFile(options.env.RESTBUS_ID_FILE, responder.id);
      logger.info({ subjects: responder.subjects, id: responder.id }, 'answering');
      return { ...context, subjects: responder.subjects, id: responder.id };
    },
    stop() {
      stopping ??= (async () => {
        for (const shutdown of shutdowns.reverse()) await shutdown();
      })();
      return stopping;
    },
  };
}
