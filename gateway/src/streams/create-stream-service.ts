import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
import type { Duplex } from 'node:stream';
import type { NatsConnection } from 'nats';
import type { Registry } from 'prom-client';
import { WebSocketServer, type WebSocket } from 'ws';
import { RestbusError, type Logger } from '@restbus/infra';
import type { ApiOperation } from '@restbus/openapi';
import { DEFAULT_QUEUE_LIMITS, type QueueLimits } from './client-queue';
import { createEventSources, type EventSources, type StreamSpec } from './event-sources';
import { createHeartbeat } from './heartbeat';
import { createSseWriter } from './sse-writer';
import type { StreamClient } from './stream-client';
import { createStreamCounters } from './stream-counters';
import type { StreamEvent } from './stream-event';
import { bindStreamMetrics } from './stream-metrics';
import { createStreamOpener, type ServiceAnswer, type StreamOutcome } from './stream-opener';
import { createStreamRegistry } from './stream-registry';
import { createWsSender, WS_MAX_PAYLOAD } from './ws-sender';

export interface StreamServiceOptions {
  /** The NATS connection once there is one (the link's); absent without -u, where only mocked streams open. */
  connection?: () => NatsConnection | undefined;
  limits?: QueueLimits;
  /** Streams open at once at most (--streamMaxOpen). */
  maxOpen: number;
  /** Between the keep-alives of an idle stream (--streamHeartbeat). */
  heartbeatMs: number;
  /** Between the events of a mocked stream (--mockEventInterval). */
  mockIntervalMs: number;
  /** The gateway's metrics registry: the streams' metrics are bound to it. */
  registry: Registry;
  logger: Logger;
}

/** Where a stream goes: an SSE response, or an HTTP upgrade to a WebSocket (completed only when it opens). */
export type StreamTarget =
  | { kind: 'sse'; res: ServerResponse; headers: OutgoingHttpHeaders }
  | { kind: 'ws'; req: IncomingMessage; socket: Duplex; head: Buffer };

export interface StreamService {
  /**
   * Opens the stream of an operation (`key`, streamKeyOf) once its service says yes (createStreamOpener): its
   * answer otherwise. Throws RestbusError (400 for a bad resume point is the caller's; full, NATS or store away).
   */
  open(
    target: StreamTarget,
    request: { key: string; spec: StreamSpec; ask(): Promise<ServiceAnswer> },
  ): Promise<StreamOutcome>;
  /** -m: a stream that sends `events` (after `since`), one every mock interval, then only keep-alives. */
  openMock(
    target: StreamTarget,
    request: { key: string; events: readonly StreamEvent[]; since?: number },
  ): Promise<void>;
  /** Ends the streams whose operation is not among `keys` (a reload removed or changed it). */
  keepOnly(keys: ReadonlySet<string>): void;
  /** Ends every stream and stops the feeds and the keep-alives (shutdown). */
  close(): Promise<void>;
}

/** What names a stream operation across reloads: its path, subject and JetStream stream. */
export function streamKeyOf(model: ApiOperation): string | undefined {
  return model.stream ? `${model.path}\n${model.stream.subject}\n${model.stream.stream ?? ''}` : undefined;
}

/**
 * The gateway's event streams, composed once: one heartbeat, one set of counters (bound to /-/metrics), one registry
 * of open streams, one set of feeds (made on the first stream, on the NATS link's connection), one SSE writer, one
 * WebSocket sender and the opener. The feeds need NATS: without it only mocked streams open.
 */
export function createStreamService(options: StreamServiceOptions): StreamService {
  const logger = options.logger.child({ component: 'streams' });
  const counters = createStreamCounters();
  bindStreamMetrics(options.registry, counters);
  const heartbeat = createHeartbeat({ intervalMs: options.heartbeatMs });
  const limits = options.limits ?? DEFAULT_QUEUE_LIMITS;
  const registry = createStreamRegistry({ maxOpen: options.maxOpen, counters });
  const sse = createSseWriter({ heartbeat, counters, limits });
  const ws = createWsSender({ heartbeat, counters, limits });
  const wss = new WebSocketServer({ noServer: true, maxPayload: WS_MAX_PAYLOAD });
  let feeds: EventSources | undefined;
  const sources: EventSources = {
    attach(spec, client) {
      const nc = options.connection?.();
      if (!nc) {
        return Promise.reject(
          new RestbusError('NATS_UNAVAILABLE', 'the event stream cannot open: NATS is not connected'),
        );
      }
      feeds ??= createEventSources({ nc, logger });
      return feeds.attach(spec, client);
    },
    size: () => feeds?.size() ?? 0,
    held: () => feeds?.held() ?? 0,
    close: async () => feeds?.close(),
  };
  const opener = createStreamOpener({ sources, registry, sse, ws, logger });
  /** The open streams by operation, so that a reload ends only those of operations it removed. */
  const byKey = new Map<string, Set<StreamClient>>();
  const remember = (key: string, client: StreamClient): void => {
    let clients = byKey.get(key);
    if (!clients) byKey.set(key, (clients = new Set()));
    clients.add(client);
    client.onEnd(() => {
      clients.delete(client);
      if (clients.size === 0 && byKey.get(key) === clients) byKey.delete(key);
    });
  };
  // ws answers a bad handshake itself, in plain text, unless told here: the caller answers it in JSON instead.
  const refusals = new WeakMap<Duplex, string>();
  wss.on('wsClientError', (err: Error, socket: Duplex) => refusals.set(socket, err.message));
  /**
   * Completes the upgrade. ws calls back at once when the handshake is valid and the socket still open; otherwise it
   * never does (it refused the handshake, or closed a socket its client had left), so the stream's slot is freed
   * by rejecting rather than held by a promise that never settles.
   */
  const accept = (target: Extract<StreamTarget, { kind: 'ws' }>): Promise<WebSocket> => {
    let accepted: WebSocket | undefined;
    wss.handleUpgrade(target.req, target.socket, target.head, (socket) => {
      // Guarded at once: the client may send a bad frame while the stream is still opening.
      ws.guard(socket);
      accepted = socket;
    });
    if (accepted) return Promise.resolve(accepted);
    const refusal = refusals.get(target.socket) ?? 'the connection closed during the handshake';
    return Promise.reject(
      new RestbusError('BAD_REQUEST', `not a WebSocket handshake: ${refusal}`, {
        // The versions ws speaks, which RFC 6455 asks a refusal of the version to name; harmless on the others.
        headers: { 'sec-websocket-version': '13, 8' },
      }),
    );
  };

  return {
    open(target, request) {
      const common = {
        spec: request.spec,
        ask: request.ask,
        opened: (client: StreamClient) => remember(request.key, client),
      };
      return target.kind === 'sse'
        ? opener.openSse({ ...common, res: target.res, headers: target.headers })
        : opener.openWebSocket({ ...common, accept: () => accept(target) });
    },
    async openMock(target, request) {
      const slot = registry.reserve();
      let client: StreamClient;
      try {
        client = target.kind === 'sse' ? sse.open(target.res, target.headers) : ws.open(await accept(target));
      } catch (err) {
        slot.release();
        throw err;
      }
      const { events } = request;
      let next = Math.min(request.since ?? 0, events.length);
      let timer: NodeJS.Timeout | undefined;
      const send = (): void => {
        if (next < events.length) client.deliver(events[next++]);
        if (next >= events.length) clearInterval(timer);
      };
      send();
      if (next < events.length) timer = setInterval(send, options.mockIntervalMs);
      slot.track(client, () => clearInterval(timer));
      remember(request.key, client);
    },
    keepOnly(keys) {
      for (const [key, clients] of byKey) {
        if (keys.has(key)) continue;
        for (const client of [...clients]) client.end();
      }
    },
    async close() {
      registry.endAll();
      heartbeat.close();
      await sources.close();
      wss.close();
    },
  };
}
