import type { Server as HttpServer } from 'node:http';
import type { Subscription } from 'nats';
import type { Registry } from 'prom-client';
import { Server as SocketServer, type Socket } from 'socket.io';
import { WebSocketServer } from 'ws';
import type { Logger, NatsLink } from '@restbus/infra';
import { createSocketMetrics, type SocketMetrics } from './create-socket-metrics';
import { hasWildcard } from './subject-list';
import { toNatsPayload } from './to-nats-payload';
import { watchSendBuffer } from './watch-send-buffer';

/** How many distinct refused event names are logged; past that one line says the rest are not. */
const MAX_LOGGED_EVENT_NAMES = 100;
/** Event names are the client's: a log line shows at most this many characters of one. */
const MAX_SHOWN_NAME = 200;
/** A failing publish is logged at most once in this time. */
const FAILURE_LOG_INTERVAL_MS = 10_000;

export interface SocketGatewayOptions {
  /** The gateway's own HTTP server: socket.io answers at `/socket.io/` on it, the rest stays the gateway's. */
  server: HttpServer;
  link: NatsLink;
  /** easer's -i: subjects (wildcards allowed) whose messages go to every client. */
  inbound: readonly string[];
  /** easer's -o: subjects a client publishes to by emitting the event of that name. */
  outbound: readonly string[];
  /** The largest message a client may send (socket.io's maxHttpBufferSize): the gateway's body limit. */
  maxMessageBytes: number;
  /** The bytes queued for one client past which it is disconnected. */
  bufferLimit: number;
  /** --cors: the origins allowed to use the polling transport from a page; none when absent, as in easer. */
  corsOrigins?: readonly string[];
  registry: Registry;
  logger: Logger;
}

export interface SocketGateway {
  /**
   * Unsubscribes the inbound subjects and closes every client (socket.io's `io.close()`, which also stops the HTTP
   * server from listening, as the gateway's stop does anyway).
   */
  close(): Promise<void>;
}

/**
 * easer's WebSocket gateway (-w): a socket.io 4 server on the gateway's HTTP server, namespace `/`. Each message
 * on an inbound subject goes to every client as the event named by that subject, its payload as a string (and,
 * for a wildcard subject, the message's own subject as a second argument); an event named by an outbound subject is
 * published to it and acknowledged with `true`. Subscribes once NATS is connected; nats.js keeps the subscriptions
 * across reconnects.
 */
export function startSocketGateway(options: SocketGatewayOptions): SocketGateway {
  const logger = options.logger.child({ component: 'websocket' });
  const cors = options.corsOrigins?.length
    ? { origin: options.corsOrigins.includes('*') ? '*' : [...options.corsOrigins] }
    : undefined;
  const io = new SocketServer(options.server, {
    path: '/socket.io/',
    // socket.io's default is 1 MB; a message is published as one NATS message, as a request body is sent.
    maxHttpBufferSize: options.maxMessageBytes,
    // engine.io destroys any upgrade on another path after a second by default: the gateway's event streams take
    // WebSockets on their own paths, and the gateway answers every other upgrade itself.
    destroyUpgrade: false,
    // The gateway's ws, not engine.io's older copy: it terminates a client that sends pings faster than it reads the
    // pongs (maxPendingAutoPongs), where the older one queues pongs without bound.
    wsEngine: WebSocketServer,
    ...(cors && { cors }),
  });
  const metrics = createSocketMetrics(options.registry, () => io.engine.clientsCount);
  const subscriptions: Subscription[] = [];
  let closed = false;

  options.link.ready().then(
    (nc) => {
      if (closed) return;
      for (const subject of options.inbound) {
        const wildcard = hasWildcard(subject);
        subscriptions.push(
          nc.subscribe(subject, {
            callback: (err, msg) => {
              if (err) {
                logger.error({ err, subject }, 'an inbound subscription failed');
                return;
              }
              // Buffer's decoding keeps a byte order mark, which TextDecoder would drop.
              const text = Buffer.from(msg.data.buffer, msg.data.byteOffset, msg.data.byteLength).toString('utf8');
              if (wildcard) io.emit(subject, text, msg.subject);
              else io.emit(subject, text);
              metrics.toClients();
            },
          }),
        );
      }
      // Said once the server has the subscriptions: from then on no message on them is missed.
      nc.flush().then(
        () => logger.info({ inbound: options.inbound }, 'inbound subjects subscribed'),
        () => undefined,
      );
    },
    () => undefined,
  );

  const refuse = createRefusalLog(logger, metrics);
  const outbound = new Set(options.outbound);
  let lastFailureLogged = -Infinity;
  io.on('connection', (socket: Socket) => {
    watchSendBuffer(socket, options.bufferLimit, (queuedBytes) => {
      metrics.cut();
      logger.warn(
        { client: socket.id, address: socket.handshake.address, queuedBytes, limit: options.bufferLimit },
        'socket.io client disconnected: more was queued for it than --wsBufferLimit allows',
      );
    });
    socket.onAny((event: unknown, ...args: unknown[]) => {
      const last = args.at(-1);
      const ack = typeof last === 'function' ? (last as (result: unknown) => void) : undefined;
      // Only the first argument is published, as in easer.
      const payload = ack ? args.slice(0, -1)[0] : args[0];
      if (typeof event !== 'string' || !outbound.has(event)) {
        refuse(event);
        return;
      }
      const nc = options.link.current();
      try {
        if (!nc || nc.isClosed()) throw new Error('not connected to NATS yet');
        nc.publish(event, toNatsPayload(payload));
      } catch (err) {
        // Not acknowledged: the client's emitWithAck times out, as for anything not published. Clients choose how
        // often this happens (a payload over NATS' max_payload), so it is said at most once per interval.
        const now = Date.now();
        if (now - lastFailureLogged >= FAILURE_LOG_INTERVAL_MS) {
          lastFailureLogged = now;
          logger.error({ err, subject: event }, 'cannot publish a socket.io event to NATS; it is not acknowledged');
        }
        return;
      }
      metrics.toNats();
      ack?.(true);
    });
  });

  return {
    async close() {
      closed = true;
      for (const subscription of subscriptions.splice(0)) subscription.unsubscribe();
      await io.close();
    },
  };
}

/** Counts every refused event and logs each event name once, up to MAX_LOGGED_EVENT_NAMES names. */
function createRefusalLog(logger: Logger, metrics: SocketMetrics): (event: unknown) => void {
  const logged = new Set<string>();
  return (event) => {
    metrics.refused();
    const name = String(event).slice(0, MAX_SHOWN_NAME);
    if (logged.has(name) || logged.size > MAX_LOGGED_EVENT_NAMES) return;
    logged.add(name);
    if (logged.size > MAX_LOGGED_EVENT_NAMES) {
      logger.warn('more socket.io event names are not -o subjects; no longer logging them (see the metric)');
      return;
    }
    logger.warn(
      { event: name },
      'socket.io event not published: its name is no -o (--outbound) subject; it is not acknowledged',
    );
  };
}
