import type { Server } from 'node:http';
import {
  coalesceRuns,
  createHttpServer,
  createNatsLink,
  listenHttpServer,
  toHttpLimits,
  toNatsLinkOptions,
  type Logger,
} from '@restbus/infra';
import type { GatewayConfig } from '../config';
import { createGateway, type GatewayOptions } from './create-gateway';
import { createMetrics } from '../observability/create-metrics';
import { createApiLinter, type ApiLinter } from '../openapi/create-api-linter';
import { reportDiagnostics } from '../openapi/report-diagnostics';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { ReplyChecker } from '../replies/create-reply-checks';
import { assertSubjectPrefixes } from './assert-subject-prefixes';
import { isSecured } from '../security/compile-security';
import { DEFAULT_API_KEY_BUCKET } from '../security/api-keys/api-key-record';
import { ApiKeyStore } from '../security/api-keys/api-key-store';
import { createRateLimits } from './create-rate-limits';
import { ApiLoader } from './api-loader';
import { createSecuritySettings } from './create-security-settings';
import { createForwarding } from './create-forwarding';
import { createGatewayStreams } from './create-gateway-streams';
import { startSocketBridge } from './start-socket-bridge';
import { keepBodyLimitWithinPayload } from './keep-body-limit-within-payload';
import { readCorsOrigins } from './read-cors-origins';

export interface RunningGateway {
  readonly server: Server;
  readonly port: number;
  /**
   * Loads the API files again; on failure logs why, keeps the old endpoints and resolves false. Coalesced: one load
   * at a time and one queued, which every call made meanwhile joins (see coalesceRuns).
   */
  reload(): Promise<boolean>;
  /** Stops accepting, lets requests in flight finish (bounded by the reply timeout), drains NATS. */
  stop(): Promise<void>;
}

const choosePort = (port: number): string => `--port ${port} or GATEWAY_PORT=${port}`;

/**
 * Said at start and on each reload when forwarded calls of secured operations go unchecked because --auth was left
 * out (today's behaviour, kept so that easer's users upgrade without surprise): the services must check them.
 */
function warnOfUncheckedSecurity(config: Readonly<GatewayConfig>, endpoints: readonly ApiEndpoint[], logger: Logger) {
  if (!config.useMessaging || config.auth !== undefined) return;
  const secured = endpoints.filter(isSecured).length;
  if (secured === 0) return;
  logger.warn(
    { secured },
    'the API declares security, but forwarded calls are not checked: the services must check them (--auth verify checks them here; --auth off says this is meant)',
  );
}

/** The gateway's options its settings give, as they are. */
function toGatewaySettings(config: Readonly<GatewayConfig>) {
  return {
    topicPrefix: config.topicPrefix,
    basePath: config.basePath,
    staticContentBasePath: config.staticContentBasePath,
    bodyLimit: config.bodyLimit,
    corsOrigins: readCorsOrigins(config.cors),
    validate: config.validate,
    validateUnchecked: config.validateUnchecked,
    mock: config.enableMocking,
    mockWrites: config.mockWrites,
    mockChecksCredentials: config.auth === undefined,
    dropCredentials: config.authDropCredentials,
    compress: config.useCompression,
  } satisfies Partial<GatewayOptions>;
}

/** What startGateway takes beside its settings; tests pass their own. */
export interface GatewayParts {
  /** Lints the API files (Spectral in a worker thread, createApiLinter's, by default). */
  linter?: ApiLinter;
}

/**
 * Loads the API, connects to NATS when forwarding (in the background: the gateway serves while NATS is away),
 * listens. It serves once the files are read, checked and routed: the lint's warnings (Spectral, in a worker, the
 * longest part of a start) and -m's come in the log after `gateway listening`, then `API checked for warnings`.
 * With --strict, where a warning refuses the files, it listens only once they are all known.
 */
export async function startGateway(
  config: Readonly<GatewayConfig>,
  logger: Logger,
  parts: GatewayParts = {},
): Promise<RunningGateway> {
  // Checked even when not forwarding: a broken NATS setting exits 2 at start, not on the day -u is added.
  const natsLinkOptions = toNatsLinkOptions(config);
  assertSubjectPrefixes(config);
  const linter = parts.linter ?? createApiLinter({ cacheDir: config.lintCache });
  const metrics = createMetrics();
  let apiKeys: ApiKeyStore | undefined;
  // The store is made when a load first needs it and started with the load's security, once the link is made.
  const securitySettings = createSecuritySettings(config, metrics, logger, () =>
    config.useMessaging
      ? (apiKeys ??= new ApiKeyStore({
          link: () => link!,
          bucket: config.authKeyBucket ?? DEFAULT_API_KEY_BUCKET,
          logger,
        }))
      : undefined,
  );
  // Made before the link, which it asks for once a load has limits and the census starts.
  const rateLimits = createRateLimits(config, () => link!, metrics, logger);
  const loader = new ApiLoader({ config, linter, security: securitySettings, rateLimits, logger });
  const loaded = await loader.load(true);
  // -w relays over NATS even without -u, as easer's does. Made once the files loaded: a start they refuse connects
  // to nothing.
  const link =
    config.useMessaging || config.useWebsocket
      ? createNatsLink({ ...natsLinkOptions, name: 'restbus-gateway', inboxPrefix: config.inboxPrefix, logger })
      : undefined;
  const endpoints = loaded.endpoints;
  let checkers: ReadonlyMap<ApiEndpoint, ReplyChecker> = loaded.checkers;
  let security = loaded.security;
  const forward = createForwarding(config, link, () => checkers, metrics, logger);
  const streams = createGatewayStreams(config, link, metrics, logger);
  const gateway = createGateway({
    ...toGatewaySettings(config),
    endpoints,
    forward,
    isConnected: () => !link || link.isConnected(),
    policies: security.policies,
    streams,
    socketIo: link !== undefined && config.useWebsocket === true,
    metrics,
    logger,
  });
  // HTTP limits the command line leaves out keep infra's DEFAULT_HTTP_LIMITS.
  const server = createHttpServer(gateway.handle, { limits: toHttpLimits(config) });
  server.on('upgrade', gateway.upgrade);
  const sockets = startSocketBridge(config, server, link, metrics, logger);
  security.start();
  warnOfUncheckedSecurity(config, endpoints, logger);
  /** Ends what loads and keeps the security fresh; a lint under way is no reason to wait: its worker ends now. */
  const stopLoading = (): void => {
    loader.stop();
    security.stop();
    apiKeys?.stop();
    rateLimits.stop();
    linter.close?.();
  };
  let port: number;
  try {
    ({ port } = await listenHttpServer(server, { port: config.port, howToChoose: choosePort }));
  } catch (err) {
    stopLoading();
    await link?.drain();
    throw err;
  }
  if (link) keepBodyLimitWithinPayload(link, gateway, config.bodyLimit, logger);
  logger.info(
    { port, endpoints: endpoints.length, forwarding: config.useMessaging, files: config.restApiPath },
    'gateway listening',
  );
  if (sockets) logger.info({ path: '/socket.io/', ...sockets.subjects }, 'WebSocket gateway (socket.io) listening');
  // The warnings found while the gateway serves, once per start; a gateway stopped meanwhile says none.
  void loaded.later.then((warnings) => {
    if (loader.isStopped) return;
    reportDiagnostics(warnings, logger);
    logger.info({ warnings: warnings.length }, 'API checked for warnings');
  });

  // A load reads files, lints in a worker and compiles routes: a burst of SIGHUPs must not run one each, at once,
  // nor let an older load finish last and win.
  const reload = coalesceRuns(async () => {
    try {
      const reloaded = await loader.load(false);
      // Stopped while it loaded: nothing of it starts (no key refresh, no bucket watch on a draining link). A load's
      // security runs nothing until started, so a load not taken needs no stop (its key sets may be the served ones).
      if (loader.isStopped) return false;
      // The gateway first: it refuses (changing nothing) what it cannot serve.
      gateway.setEndpoints(reloaded.endpoints, reloaded.security.policies);
      checkers = reloaded.checkers;
      // The key sets both loads share are stopped and started again: kept, with their keys, and fetched anew.
      security.stop();
      security = reloaded.security;
      security.start();
      warnOfUncheckedSecurity(config, reloaded.endpoints, logger);
      logger.info({ endpoints: reloaded.endpoints.length }, 'API reloaded');
      return true;
    } catch (err) {
      logger.error({ err }, 'API reload failed; the previous endpoints keep serving');
      return false;
    }
  });

  return {
    server,
    port,
    reload,
    async stop() {
      stopLoading();
      logger.info({ inFlight: gateway.inFlight() }, 'shutting down');
      gateway.beginShutdown();
      // Open streams are requests that never finish on their own: ended first, cleanly (their clients reconnect).
      await streams.close();
      // First: io.close() disconnects the clients, then stops the server from listening as server.close() does.
      const socketsClosed = sockets?.bridge.close();
      const closed = new Promise((resolve) => server.close(resolve));
      server.closeIdleConnections();
      const deadline = Date.now() + config.timeout + 1000;
      while (gateway.inFlight() > 0 && Date.now() < deadline) await new Promise((resolve) => setTimeout(resolve, 20));
      server.closeAllConnections();
      await closed;
      await socketsClosed;
      await link?.drain();
      logger.info('stopped');
    },
  };
}
