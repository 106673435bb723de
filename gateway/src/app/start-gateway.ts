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
import { createSourceLocator, type Diagnostic } from '@restbus/openapi';
import type { GatewayConfig } from '../config';
import { createForwarder } from '../forward/create-forwarder';
import { createGateway } from './create-gateway';
import { createMetrics } from '../observability/create-metrics';
import { reportDiagnostics } from '../openapi/report-diagnostics';
import { assertServable, readApis, type LoadedApis, type LoadOptions } from '../openapi/load-api';
import { createApiLinter, type ApiLinter } from '../openapi/create-api-linter';
import type { ApiEndpoint } from '../openapi/endpoint';
import type { ReplyChecker } from '../replies/create-reply-checks';
import { assertSubjectPrefixes } from './assert-subject-prefixes';
import { readSubjectList } from '../socket-io-bridge/subject-list';
import { createStreamService } from '../streams/create-stream-service';
import { compileSecurity, isSecured, type CompiledSecurity } from '../security/compile-security';
import type { VerifySettings } from '../security/compile-verified-security';
import { DEFAULT_ISSUER_KEY_TIMING } from '../security/issuer-keys';
import { DEFAULT_API_KEY_BUCKET } from '../security/api-keys/api-key-record';
import { ApiKeyStore } from '../security/api-keys/api-key-store';
import { readAuthSchemes, type AuthSchemeSettings } from '../security/read-auth-schemes';

// Loaded when a mode needs them, not at every start (see startGateway): the reply checks' compilers (-m's warnings,
// --validateReplies), -m's warnings, and socket.io (-w).
const loadReplyChecks = (): typeof import('../replies/create-reply-checks') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../replies/create-reply-checks') as typeof import('../replies/create-reply-checks');
const loadReplyCheckingForwarder = (): typeof import('../replies/create-reply-checking-forwarder') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../replies/create-reply-checking-forwarder') as typeof import('../replies/create-reply-checking-forwarder');
const loadMockWarnings = (): typeof import('../mock/find-mock-warnings') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../mock/find-mock-warnings') as typeof import('../mock/find-mock-warnings');
const loadExampleWarnings = (): typeof import('../replies/find-example-warnings') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../replies/find-example-warnings') as typeof import('../replies/find-example-warnings');
const loadSocketGateway = (): typeof import('../socket-io-bridge/start-socket-gateway') =>
  // eslint-disable-next-line @typescript-eslint/no-require-imports -- loaded by the modes that use it
  require('../socket-io-bridge/start-socket-gateway') as typeof import('../socket-io-bridge/start-socket-gateway');

/** What a request message needs beside the body: headers, cookies, the endpoint descriptor. */
const ENVELOPE_ROOM = 64 * 1024;

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

/** `--authSchemes` as the load takes it; its text was checked with the other settings (loadConfig). */
function readAuthSchemeSetting(text: string | undefined): AuthSchemeSettings | undefined {
  if (text === undefined) return undefined;
  const read = readAuthSchemes(text);
  return read.ok ? read.schemes : undefined;
}

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

/** What startGateway takes beside its settings; tests pass their own. */
export interface GatewayParts {
  /** Lints the API files (Spectral in a worker thread, createApiLinter's, by default). */
  linter?: ApiLinter;
}

/** A load's endpoints, and the warnings found after them (see loadEndpoints in startGateway). */
interface LoadedEndpoints {
  endpoints: ApiEndpoint[];
  checkers: ReadonlyMap<ApiEndpoint, ReplyChecker>;
  /** --auth: the endpoints' policies, and the issuers' key sets they verify with. */
  security: CompiledSecurity;
  /** The warnings left to say once the endpoints serve: none unless the load was told to serve first. */
  later: Promise<Diagnostic[]>;
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
  const loadOptions: LoadOptions = {
    allowOutsideRefs: config.allowOutsideRefs,
    strict: config.strict,
    topicPrefix: config.topicPrefix,
    linter,
  };
  const metrics = createMetrics();
  let apiKeys: ApiKeyStore | undefined;
  const securitySettings: VerifySettings = {
    allowHttp: config.authAllowHttp === true,
    issuers: new Map(),
    schemes: readAuthSchemeSetting(config.authSchemes),
    timing: {
      ...DEFAULT_ISSUER_KEY_TIMING,
      cooldownMs: (config.authKeyCooldown ?? 30) * 1000,
      refreshMs: (config.authKeyRefresh ?? 600) * 1000,
    },
    logger,
    onKeyFetch: (outcome) => metrics.keySetFetched(outcome),
    onTokenLookup: (result) => metrics.tokenLookup(result),
    // The store is made when a load first needs it and started with the load's security, once the link is made.
    apiKeys: () =>
      config.useMessaging
        ? (apiKeys ??= new ApiKeyStore({
            link: () => link!,
            bucket: config.authKeyBucket ?? DEFAULT_API_KEY_BUCKET,
            logger,
          }))
        : undefined,
  };
  const replyMode = config.validateReplies ?? 'off';
  const checkReplies = config.useMessaging && replyMode !== 'off';
  /** Set by stop: warnings found later are not said, nor looked for. */
  let stopped = false;
  /**
   * The warnings that take long to find: the lint's (when deferred), then what -m could not answer as described (a
   * sample past its bound, a header HTTP cannot carry, an example its schema refuses, unless the lint said so).
   */
  const findLaterWarnings = async (
    loaded: LoadedApis,
    compiled: { checkers: ReadonlyMap<ApiEndpoint, ReplyChecker> } | undefined,
  ): Promise<Diagnostic[]> => {
    const found = loaded.lint ? await loaded.lint : [];
    if (!config.enableMocking || loaded.endpoints.length === 0 || stopped) return found;
    const locate = createSourceLocator();
    const { findMockWarnings } = loadMockWarnings();
    found.push(...(await findMockWarnings(loaded.endpoints, { locate })));
    // The reply checks compile the same schemas -m's examples are checked against.
    const { checkers } = compiled ?? loadReplyChecks().createReplyChecks(loaded.endpoints);
    const { findExampleWarnings } = loadExampleWarnings();
    const known = [...loaded.diagnostics, ...found];
    found.push(...(await findExampleWarnings(loaded.endpoints, checkers, { locate, known })));
    return found;
  };
  /**
   * One load of the files. With `serveFirst` (the start, without --strict) it resolves as soon as the endpoints are
   * known and routable, and `later` brings the warnings that take long to find; otherwise they are all said first
   * (a reload: the old endpoints serve meanwhile; --strict: a warning refuses). A load with errors says every
   * warning before it refuses, as ever.
   */
  const loadEndpoints = async (serveFirst: boolean): Promise<LoadedEndpoints> => {
    const loaded = await readApis(config.restApiPath, { ...loadOptions, deferLint: serveFirst && !config.strict });
    const failed = loaded.diagnostics.some(({ severity }) => severity === 'error');
    // The reply checks, compiled once a load, now when calls need them (--validateReplies).
    const compiled = checkReplies ? loadReplyChecks().createReplyChecks(loaded.endpoints) : undefined;
    const later =
      serveFirst && !config.strict && !failed
        ? findLaterWarnings(loaded, compiled).catch((err: unknown) => {
            if (!stopped) logger.error({ err }, 'the API could not be checked for warnings');
            return [];
          })
        : undefined;
    if (!later) loaded.diagnostics.push(...(await findLaterWarnings(loaded, compiled)));
    // Said once per load: at start and on each reload, never per request.
    // Fatal ones are the error's message instead (--strict makes warnings fatal).
    reportDiagnostics(config.strict ? [] : loaded.diagnostics.filter(({ severity }) => severity === 'warning'), logger);
    const endpoints = assertServable(loaded, config.strict);
    for (const reason of compiled?.skipped ?? []) logger.warn({ reason }, 'replies of an operation are not checked');
    const security = await compileSecurity(endpoints, config.auth, securitySettings, createSourceLocator());
    return { endpoints, checkers: compiled?.checkers ?? new Map(), security, later: later ?? Promise.resolve([]) };
  };
  const loaded = await loadEndpoints(true);
  // -w relays over NATS even without -u, as easer's does. Made once the files loaded: a start they refuse connects
  // to nothing.
  const link =
    config.useMessaging || config.useWebsocket
      ? createNatsLink({ ...natsLinkOptions, name: 'restbus-gateway', inboxPrefix: config.inboxPrefix, logger })
      : undefined;
  const endpoints = loaded.endpoints;
  let checkers: ReadonlyMap<ApiEndpoint, ReplyChecker> = loaded.checkers;
  let security = loaded.security;
  const forwarder =
    link && config.useMessaging
      ? createForwarder({ link, timeoutMs: config.timeout, inboxPrefix: config.inboxPrefix })
      : undefined;
  // --validateReplies wraps the forwarder: the call path is the same with and without it.
  const forward =
    forwarder && replyMode !== 'off'
      ? loadReplyCheckingForwarder().createReplyCheckingForwarder({
          forward: forwarder,
          mode: replyMode,
          sample: config.validateRepliesSample ?? 1,
          checkers: () => checkers,
          metrics,
          logger,
        })
      : forwarder;
  // Event streams (x-restbus-stream): their feeds read NATS only with -u; with -m alone they are mocked.
  const streams = createStreamService({
    connection: config.useMessaging ? () => link?.current() : undefined,
    limits: {
      maxEvents: config.streamMaxEvents ?? 1000,
      maxBytes: config.streamMaxBytes ?? 1024 * 1024,
      overflow: config.streamOverflow ?? 'gap',
    },
    maxOpen: config.streamMaxOpen ?? 10_000,
    heartbeatMs: (config.streamHeartbeat ?? 15) * 1000,
    mockIntervalMs: config.mockEventInterval ?? 1000,
    registry: metrics.registry,
    logger,
  });
  const gateway = createGateway({
    endpoints,
    topicPrefix: config.topicPrefix,
    basePath: config.basePath,
    staticContentBasePath: config.staticContentBasePath,
    bodyLimit: config.bodyLimit,
    forward,
    isConnected: () => !link || link.isConnected(),
    corsOrigins: config.cors
      ?.split(',')
      .map((origin) => origin.trim())
      .filter(Boolean),
    validate: config.validate,
    validateUnchecked: config.validateUnchecked,
    mock: config.enableMocking,
    mockWrites: config.mockWrites,
    policies: security.policies,
    mockChecksCredentials: config.auth === undefined,
    dropCredentials: config.authDropCredentials,
    compress: config.useCompression,
    streams,
    socketIo: link !== undefined && config.useWebsocket === true,
    metrics,
    logger,
  });
  // HTTP limits the command line leaves out keep infra's DEFAULT_HTTP_LIMITS.
  const server = createHttpServer(gateway.handle, { limits: toHttpLimits(config) });
  server.on('upgrade', gateway.upgrade);
  const inbound = readSubjectList(config.inbound);
  const outbound = readSubjectList(config.outbound);
  if (!config.useWebsocket && inbound.length + outbound.length > 0) {
    logger.warn(
      { inbound, outbound },
      '-i and -o are used only with -w (--useWebsocket, EASER_USE_WEBSOCKET=true): no WebSocket gateway is started',
    );
  }
  const sockets =
    link && config.useWebsocket
      ? loadSocketGateway().startSocketGateway({
          server,
          link,
          inbound,
          outbound,
          // At least room for an event's name: a body limit of 0 must not mean socket.io's "no limit".
          maxMessageBytes: Math.max(config.bodyLimit, 1024),
          bufferLimit: config.wsBufferLimit ?? 4 * 1024 * 1024,
          corsOrigins: config.cors
            ?.split(',')
            .map((origin) => origin.trim())
            .filter(Boolean),
          registry: metrics.registry,
          logger,
        })
      : undefined;
  security.start();
  warnOfUncheckedSecurity(config, endpoints, logger);
  let port: number;
  try {
    ({ port } = await listenHttpServer(server, { port: config.port, howToChoose: choosePort }));
  } catch (err) {
    stopped = true;
    security.stop();
    apiKeys?.stop();
    linter.close?.();
    await link?.drain();
    throw err;
  }
  // A request message must fit in one NATS message: keep the body limit below the server's max_payload, with
  // room for the envelope (headers, endpoint descriptor).
  link?.ready().then(
    (nc) => {
      const room = nc.info ? nc.info.max_payload - ENVELOPE_ROOM : Infinity;
      if (config.bodyLimit > room) {
        gateway.setBodyLimit(Math.max(0, room));
        logger.warn(
          { bodyLimit: config.bodyLimit, maxPayload: nc.info?.max_payload, effective: room },
          'body limit lowered below the NATS max_payload',
        );
      }
    },
    () => undefined,
  );
  logger.info(
    { port, endpoints: endpoints.length, forwarding: config.useMessaging, files: config.restApiPath },
    'gateway listening',
  );
  if (sockets) logger.info({ path: '/socket.io/', inbound, outbound }, 'WebSocket gateway (socket.io) listening');
  // The warnings found while the gateway serves, once per start; a gateway stopped meanwhile says none.
  void loaded.later.then((warnings) => {
    if (stopped) return;
    reportDiagnostics(warnings, logger);
    logger.info({ warnings: warnings.length }, 'API checked for warnings');
  });

  // A load reads files, lints in a worker and compiles routes: a burst of SIGHUPs must not run one each, at once,
  // nor let an older load finish last and win.
  const reload = coalesceRuns(async () => {
    try {
      const reloaded = await loadEndpoints(false);
      // Stopped while it loaded: nothing of it starts (no key refresh, no bucket watch on a draining link). A load's
      // security runs nothing until started, so a load not taken needs no stop (its key sets may be the served ones).
      if (stopped) return false;
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
      stopped = true;
      security.stop();
      apiKeys?.stop();
      // A lint under way is no reason to wait: its worker ends now.
      linter.close?.();
      logger.info({ inFlight: gateway.inFlight() }, 'shutting down');
      gateway.beginShutdown();
      // Open streams are requests that never finish on their own: ended first, cleanly (their clients reconnect).
      await streams.close();
      // First: io.close() disconnects the clients, then stops the server from listening as server.close() does.
      const socketsClosed = sockets?.close();
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
