import { SpanKind, context as otelContext, trace, type Span, type Tracer } from '@opentelemetry/api';
import type { NatsConnection, Service, ServiceMsg } from 'nats';
import type { Logger } from 'pino';
import { isRestbusError, RestbusError } from '../errors/restbus-error';
import { findEndpointStats, type EndpointStats } from './endpoint-stats';
import { readHeapLive } from '../process/read-heap-live';
import { decodeRequestMessage, encodeMessage, isResponseMessage } from '../wire/codec';
import {
  createResponseHeaders,
  readCarriedBudget,
  SERVICE_ERROR_CODE_HEADER,
  SERVICE_ERROR_HEADER,
} from '../wire/headers';
import { BODY_APART, REPLY_FORM_HEADER, REPLY_HEAD_HEADER, encodeReplyApart } from '../wire/reply-apart';
import { replyError } from '../wire/replies';
import { activeTracer, endSpan, extractNatsContext } from '../tracing/spans';
import { assertSafeTopic, toTopic } from '../wire/topic';
import type { RequestMessage, ResponseMessage } from '../wire/types';

export interface RouteContext {
  logger: Logger;
  /**
   * The ms the caller still waited when the request came (its Restbus-Deadline-Ms header, see readCarriedBudget), or
   * undefined when it did not say (easer's gateway).
   */
  budgetMs?: number;
  /** When the request came (performance.now()): the budget counts from here. */
  receivedAt: number;
  /**
   * What names the call across its copies: its reply subject, which a gateway's resend and hedge reuse (and every
   * NATS client makes afresh for each request). Undefined for a publish without a reply.
   */
  callId?: string;
}

export type RouteHandler = (
  message: RequestMessage,
  context: RouteContext,
) => ResponseMessage | Promise<ResponseMessage>;

/** One endpoint a service answers: the gateway's method and path template, and the handler. */
export interface Route {
  method: string;
  uri: string;
  handle: RouteHandler;
  /** The endpoint's name in the services API; made from method and path when absent. */
  name?: string;
  /** The subject it is served on; `<topicPrefix>.<method>_<uri>` (toTopic) when absent. */
  subject?: string;
  /** What `$SRV.INFO` shows of the endpoint (a contract's operationId, method and path). */
  metadata?: Record<string, string>;
}

export interface ResponderOptions {
  nc: NatsConnection;
  logger: Logger;
  /** Service name for the NATS services API (`$SRV.PING.<name>`) and the default queue group. */
  name: string;
  version: string;
  description?: string;
  topicPrefix: string;
  /** Queue group shared by replicas; the service name when absent. */
  queue?: string;
  /**
   * Replies go only to subjects below this prefix (`_INBOX` by default, as nats.js and the gateway make them):
   * a request naming any other reply subject, say a JetStream API subject, is dropped with a warning, so that a
   * client cannot make a service publish its answer to a subject of its choice.
   */
  inboxPrefix?: string;
  routes: readonly Route[];
}

export interface Responder {
  /** The subjects subscribed, one per route, in the order of the routes. */
  readonly subjects: readonly string[];
  /** This instance's id in the NATS services API. */
  readonly id: string;
  /** Stops taking requests, lets those in flight reply, then resolves. */
  stop(): Promise<void>;
}

// Failures whose message is written for the client: the id it sent is unusable, or the store is away for now.
// Room for the reply's headers within the server's max_payload (which counts headers and payload together).
const REPLY_HEADROOM_BYTES = 1024;

const CLIENT_FACING = new Set(['MESSAGE_INVALID', 'REQUEST_INVALID', 'STORE_UNAVAILABLE']);

function replyForFailure(err: unknown): { reply: ResponseMessage; description: string; code: string } {
  if (isRestbusError(err) && CLIENT_FACING.has(err.code)) {
    return { reply: replyError(err.code, err.message), description: err.message, code: err.code };
  }
  // The cause stays in our log; the caller learns only that it failed.
  const description = 'the service failed to handle the request';
  return { reply: replyError('HANDLER_FAILED', description), description, code: 'HANDLER_FAILED' };
}

/**
 * The process as `$SRV.STATS` shows it (in each endpoint's `data`). Beside the heap in use: `heapTotal`, what V8 has
 * committed for it (it keeps pages it grew into), and `external` (Buffers and other memory V8 tracks outside its
 * heap, `arrayBuffers` among it): a resident size that grows with neither grows in the allocator. `heapLive`, the heap
 * in use just after the last full collection (absent before the first): the data the process holds.
 */
function describeProcess(): Record<
  'rss' | 'heapUsed' | 'heapTotal' | 'external' | 'arrayBuffers' | 'handles',
  number
> & { heapLive?: number } {
  const { rss, heapUsed, heapTotal, external, arrayBuffers } = process.memoryUsage();
  const handles = process.getActiveResourcesInfo().length;
  return { rss, heapUsed, heapLive: readHeapLive(), heapTotal, external, arrayBuffers, handles };
}

function endpointName(route: Route, taken: Set<string>): string {
  const base = route.name ?? `${route.method.toLowerCase()}${route.uri.replace(/[^\w]+/g, '_')}`.replace(/_+$/, '');
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/** The stable code of an error reply a handler gave (`{error, code}`, status 400 and up), for its span. */
function codeOf(reply: ResponseMessage): string | undefined {
  if ((reply.status ?? 200) < 400 || typeof reply.body !== 'object' || reply.body === null) return undefined;
  const code: unknown = Reflect.get(reply.body, 'code');
  return typeof code === 'string' ? code.slice(0, 64) : undefined;
}

/**
 * The span of one request a service handles (`process <subject>`, a server span), a child of the span whose
 * `traceparent` the message carries (the gateway's send), and active while the handler runs: the store's spans and
 * any the handler makes with OpenTelemetry's API are its children, and its log lines carry its ids.
 */
function startProcessSpan(tracer: Tracer, subject: string, queue: string, route: Route, msg: ServiceMsg): Span {
  return tracer.startSpan(
    `process ${subject}`,
    {
      kind: SpanKind.SERVER,
      attributes: {
        'messaging.system': 'nats',
        'messaging.destination.name': subject,
        'messaging.operation.type': 'process',
        'messaging.consumer.group.name': queue,
        'messaging.message.body.size': msg.data.length,
        ...(route.name !== undefined && { 'rpc.method': route.name }),
      },
    },
    extractNatsContext(msg.headers),
  );
}

/**
 * Subscribes a table of routes as endpoints of one NATS service (queue group, discovery and stats through the
 * services API) and guarantees that every request gets exactly one reply: a malformed request message gets 400,
 * a handler that throws, rejects or returns something that is not a response message gets 500.
 */
export async function startResponder(options: ResponderOptions): Promise<Responder> {
  const logger = options.logger.child({ component: 'responder' });
  // Watches the collections from now on, so that $SRV.STATS tells the live heap as of the last one.
  readHeapLive();
  const queue = options.queue ?? options.name;
  const service: Service = await options.nc.services.add({
    name: options.name,
    version: options.version,
    description: options.description,
    queue,
    // What `$SRV.STATS` tells of each endpoint besides its counts: the process's memory and handles, so that a
    // long run (bench:soak) sees a service grow without a port of its own.
    statsHandler: () => Promise.resolve(describeProcess()),
  });
  const inboxPrefix = `${options.inboxPrefix ?? '_INBOX'}.`;
  const inFlight = new Set<Promise<void>>();
  const names = new Set<string>();
  const subjects: string[] = [];

  for (const route of options.routes) {
    const subject = route.subject ?? toTopic(options.topicPrefix, route.method, route.uri);
    assertSafeTopic(subject);
    subjects.push(subject);
    const routeLogger = logger.child({ subject });
    let stats: EndpointStats | undefined;
    service.addEndpoint(endpointName(route, names), {
      subject,
      ...(route.metadata && { metadata: route.metadata }),
      handler: (err, msg) => {
        if (err) {
          routeLogger.error({ err }, 'subscription failed');
          return;
        }
        if (msg.reply && !msg.reply.startsWith(inboxPrefix)) {
          routeLogger.warn({ reply: msg.reply }, `dropped a request whose reply subject is not below ${inboxPrefix}`);
          return;
        }
        const started = performance.now();
        stats ??= findEndpointStats(service, subject);
        const context: RouteContext = {
          logger: routeLogger,
          budgetMs: readCarriedBudget(msg.headers),
          receivedAt: started,
          ...(msg.reply ? { callId: msg.reply } : {}),
        };
        const tracer = activeTracer();
        const span = tracer && startProcessSpan(tracer, subject, queue, route, msg);
        const work = (
          span
            ? otelContext.with(trace.setSpan(otelContext.active(), span), () =>
                answer(route, msg, context, stats, span),
              )
            : answer(route, msg, context, stats)
        ).finally(() => {
          stats?.addProcessingTime(performance.now() - started);
          inFlight.delete(work);
        });
        inFlight.add(work);
      },
    });
  }

  async function answer(
    route: Route,
    msg: ServiceMsg,
    context: RouteContext,
    stats: EndpointStats | undefined,
    span?: Span,
  ): Promise<void> {
    const routeLogger = context.logger;
    let reply: ResponseMessage;
    let failure: { status: number; description: string; code: string } | undefined;
    try {
      const message = decodeRequestMessage(msg.data);
      const result = await route.handle(message, context);
      if (!isResponseMessage(result)) {
        throw new RestbusError('HANDLER_FAILED', 'the handler returned something that is not a response message');
      }
      reply = result;
    } catch (err) {
      const refused = replyForFailure(err);
      reply = refused.reply;
      if (reply.status === 500) routeLogger.error({ err }, 'handler failed');
      else routeLogger.warn({ err }, 'request refused');
      failure = { status: reply.status ?? 500, description: refused.description, code: refused.code };
      stats?.countError(new Error(failure.description));
    }
    if (!msg.reply) {
      span?.end();
      return; // a publish without a reply inbox has nobody to answer
    }
    const headers = createResponseHeaders();
    let data: Uint8Array | undefined;
    try {
      // A failure keeps the envelope: the NATS service error headers travel with it, and it is rare.
      if (!failure && msg.headers?.get(REPLY_FORM_HEADER) === BODY_APART) {
        const apart = encodeReplyApart(reply);
        headers.set(REPLY_HEAD_HEADER, apart.head);
        data = apart.payload;
      } else {
        data = encodeMessage(reply);
      }
    } catch (err) {
      routeLogger.error({ err }, 'the reply cannot be encoded');
    }
    // A reply the bus would refuse leaves the caller waiting for its timeout, on every call: answer what went wrong.
    const room = (options.nc.info?.max_payload ?? Infinity) - REPLY_HEADROOM_BYTES;
    const bytes = data && data.length + Buffer.byteLength(headers.get(REPLY_HEAD_HEADER));
    if (data === undefined || bytes === undefined || bytes > room) {
      const description =
        bytes === undefined
          ? 'the reply cannot be encoded'
          : `the reply (${bytes} bytes) is larger than the message bus accepts`;
      if (bytes !== undefined) routeLogger.error({ bytes, room }, description);
      failure = { status: 500, description, code: 'HANDLER_FAILED' };
      data = encodeMessage(replyError('HANDLER_FAILED', description));
      headers.delete(REPLY_HEAD_HEADER);
    }
    try {
      // What respondError adds: the NATS services API's error headers.
      if (failure) {
        headers.set(SERVICE_ERROR_CODE_HEADER, String(failure.status));
        headers.set(SERVICE_ERROR_HEADER, failure.description);
      }
      // Published on the connection the process has now, not on the one the request came in on: when the link
      // moved away from a lame-duck server meanwhile, that one is being drained (see createNatsLink).
      options.nc.publish(msg.reply, data, { headers });
    } catch (err) {
      routeLogger.error({ err }, 'could not send the reply');
    }
    if (span) endSpan(span, { status: failure?.status ?? reply.status ?? 200, code: failure?.code ?? codeOf(reply) });
  }

  // Subscriptions are sent to the server asynchronously; once flushed, a request cannot meet "no responders".
  await options.nc.flush();

  return {
    subjects,
    id: service.info().id,
    async stop() {
      await service.stop();
      await Promise.allSettled([...inFlight]);
    },
  };
}
