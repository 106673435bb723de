import { once } from 'node:events';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import {
  coalesceRuns,
  createHttpServer,
  createNatsLink,
  describeListenError,
  toHttpLimits,
  toNatsLinkOptions,
  type Logger,
} from '@restbus/infra';
import { createSourceLocator } from '@restbus/openapi';
import type { GatewayConfig } from '../config';
import { createForwarder } from '../forward/create-forwarder';
import { createGateway } from './create-gateway';
import { createMetrics } from '../observability/create-metrics';
import { reportDiagnostics } from '../openapi/report-diagnostics';
import { assertServable, readApis, type LoadOptions } from '../openapi/load-api';
import { createApiLinter } from '../openapi/create-api-linter';
import { findMockWarnings } from '../mock/find-mock-warnings';
import type { ApiEndpoint } from '../openapi/endpoint';
import { createReplyChecks, type ReplyChecker } from '../replies/create-reply-checks';
import { createReplyCheckingForwarder } from '../replies/create-reply-checking-forwarder';
import { findExampleWarnings } from '../replies/find-example-warnings';
import { assertSubjectPrefixes } from './assert-subject-prefixes';
import { readSubjectList } from '../realtime/subject-list';
import { startSocketGateway } from '../realtime/start-socket-gateway';
import { createStreamService } from '../streams/create-stream-service';

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

/** Loads the API, connects to NATS when forwarding (in the background: the gateway serves while NATS is away), listens. */
export async function startGateway(config: Readonly<GatewayConfig>, logger: Logger): Promise<RunningGateway> {
  // Checked even when not forwarding: a broken NATS setting exits 2 at start, not on the day -u is added.
  const natsLinkOptions = toNatsLinkOptions(config);
  assertSubjectPrefixes(config);
  const loadOptions: LoadOptions = {
    allowOutsideRefs: config.allowOutsideRefs,
    strict: config.strict,
    topicPrefix: config.topicPrefix,
    linter: createApiLinter(),
  };
  const replyMode = config.validateReplies ?? 'off';
  const checkReplies = config.useMessaging && replyMode !== 'off';
  const loadEndpoints = async () => {
    const loaded = await readApis(config.restApiPath, loadOptions);
    // The reply checks, compiled once a load: for --validateReplies, and for -m's examples (the same schemas).
    const replyChecks =
      checkReplies || config.enableMocking ? createReplyChecks(loaded.endpoints) : { checkers: new Map(), skipped: [] };
    // What -m could not answer as described (a sample past its bound, a header HTTP cannot carry, an example its
    // schema refuses) is known now.
    if (config.enableMocking) {
      const locate = createSourceLocator();
      loaded.diagnostics.push(...(await findMockWarnings(loaded.endpoints, { locate })));
      const known = loaded.diagnostics;
      loaded.diagnostics.push(
        ...(await findExampleWarnings(loaded.endpoints, replyChecks.checkers, { locate, known })),
      );
    }
    // Said once per load: at start and on each reload, never per request.
    // Fatal ones are the error's message instead (--strict makes warnings fatal).
    reportDiagnostics(config.strict ? [] : loaded.diagnostics.filter(({ severity }) => severity === 'warning'), logger);
    const endpoints = assertServable(loaded, config.strict);
    if (checkReplies) {
      for (const reason of replyChecks.skipped) logger.warn({ reason }, 'replies of an operation are not checked');
    }
    return { endpoints, checkers: replyChecks.checkers };
  };
  const loaded = await loadEndpoints();
  const endpoints = loaded.endpoints;
  let checkers: ReadonlyMap<ApiEndpoint, ReplyChecker> = loaded.checkers;
  // -w relays over NATS even without -u, as easer's does.
  const link =
    config.useMessaging || config.useWebsocket
      ? createNatsLink({ ...natsLinkOptions, name: 'restbus-gateway', inboxPrefix: config.inboxPrefix, logger })
      : undefined;
  const metrics = createMetrics();
  const forwarder =
    link && config.useMessaging
      ? createForwarder({ link, timeoutMs: config.timeout, inboxPrefix: config.inboxPrefix })
      : undefined;
  // --validateReplies wraps the forwarder: the call path is the same with and without it.
  const forward =
    forwarder && replyMode !== 'off'
      ? createReplyCheckingForwarder({
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
      ? startSocketGateway({
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
  server.listen(config.port);
  try {
    await once(server, 'listening');
  } catch (err) {
    await link?.drain();
    throw describeListenError(err, { port: config.port, howToChoose: choosePort }) ?? err;
  }
  const port = (server.address() as AddressInfo).port;
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

  // A load reads files, lints in a worker and compiles routes: a burst of SIGHUPs must not run one each, at once,
  // nor let an older load finish last and win.
  const reload = coalesceRuns(async () => {
    try {
      const reloaded = await loadEndpoints();
      // The gateway first: it refuses (changing nothing) what it cannot serve.
      gateway.setEndpoints(reloaded.endpoints);
      checkers = reloaded.checkers;
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
