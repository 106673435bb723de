import type { NatsConnection, Service, ServiceMsg } from 'nats';
import type { Logger } from 'pino';
import { isRestbusError, RestbusError } from '../errors/restbus-error';
import { findEndpointStats, type EndpointStats } from './endpoint-stats';
import { decodeRequestMessage, encodeMessage, isResponseMessage } from '../wire/codec';
import { createResponseHeaders } from '../wire/headers';
import { assertSafeTopic, toTopic } from '../wire/topic';
import type { RequestMessage, ResponseMessage } from '../wire/types';

export interface RouteContext {
  logger: Logger;
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

function errorReply(status: number, code: string, message: string): ResponseMessage {
  return { status, headers: { 'content-type': 'application/json' }, body: { error: message, code } };
}

function endpointName(route: Route, taken: Set<string>): string {
  const base = `${route.method.toLowerCase()}${route.uri.replace(/[^\w]+/g, '_')}`.replace(/_+$/, '');
  let name = base;
  for (let i = 2; taken.has(name); i++) name = `${base}_${i}`;
  taken.add(name);
  return name;
}

/**
 * Subscribes a table of routes as endpoints of one NATS service (queue group, discovery and stats through the
 * services API) and guarantees that every request gets exactly one reply: a malformed request message gets 400,
 * a handler that throws, rejects or returns something that is not a response message gets 500.
 */
export async function startResponder(options: ResponderOptions): Promise<Responder> {
  const logger = options.logger.child({ component: 'responder' });
  const service: Service = await options.nc.services.add({
    name: options.name,
    version: options.version,
    description: options.description,
    queue: options.queue ?? options.name,
  });
  const inFlight = new Set<Promise<void>>();
  const names = new Set<string>();
  const subjects: string[] = [];

  for (const route of options.routes) {
    const subject = toTopic(options.topicPrefix, route.method, route.uri);
    assertSafeTopic(subject);
    subjects.push(subject);
    const routeLogger = logger.child({ subject });
    let stats: EndpointStats | undefined;
    service.addEndpoint(endpointName(route, names), {
      subject,
      handler: (err, msg) => {
        if (err) {
          routeLogger.error({ err }, 'subscription failed');
          return;
        }
        const started = performance.now();
        stats ??= findEndpointStats(service, subject);
        const work = answer(route, msg, routeLogger, stats).finally(() => {
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
    routeLogger: Logger,
    stats: EndpointStats | undefined,
  ): Promise<void> {
    let reply: ResponseMessage;
    let failure: { status: number; description: string } | undefined;
    try {
      const message = decodeRequestMessage(msg.data);
      const result = await route.handle(message, { logger: routeLogger });
      if (!isResponseMessage(result)) {
        throw new RestbusError('HANDLER_FAILED', 'the handler returned something that is not a response message');
      }
      reply = result;
    } catch (err) {
      const known = isRestbusError(err) && err.code === 'MESSAGE_INVALID';
      if (known) {
        routeLogger.warn({ err }, 'malformed request message');
        reply = errorReply(400, err.code, err.message);
      } else {
        routeLogger.error({ err }, 'handler failed');
        // The cause stays in our log; the caller learns only that it failed.
        reply = errorReply(500, 'HANDLER_FAILED', 'the service failed to handle the request');
      }
      failure = { status: reply.status ?? 500, description: (reply.body as { error: string }).error };
      stats?.countError(new Error(failure.description));
    }
    if (!msg.reply) return; // a publish without a reply inbox has nobody to answer
    const data = encodeMessage(reply);
    const headers = createResponseHeaders();
    try {
      if (failure) msg.respondError(failure.status, failure.description, data, { headers });
      else msg.respond(data, { headers });
    } catch (err) {
      routeLogger.error({ err }, 'could not send the reply');
    }
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
