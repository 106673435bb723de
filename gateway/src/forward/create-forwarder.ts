import { ErrorCode as NatsErrorCode, NatsError, headers as natsHeaders, type Msg } from 'nats';
import {
  BODY_APART,
  MESSAGE_TYPE_HEADER,
  REPLY_FORM_HEADER,
  RPC_REQUEST,
  RestbusError,
  SERVICE_ERROR_CODE_HEADER,
  SERVICE_ERROR_HEADER,
  decodeReplyApart,
  decodeLargeResponseMessage,
  decodeResponseMessage,
  encodeRequestMessage,
  type IncomingRequest,
  type NatsLink,
  type ResponseMessage,
} from '@restbus/infra';
import type { Span } from '@opentelemetry/api';
import { endSendSpan, startSendSpan } from '../observability/call-spans';
import type { TraceContext } from '../observability/trace-context';
import type { SendObserver } from './pending-call';
import type { CompiledEndpoint } from '../call/call';
import { createRequestMux, type RequestMux } from './create-request-mux';
import { createResendPolicy, type ResendPolicy } from './resend-policy';

export interface ForwarderOptions {
  link: NatsLink;
  timeoutMs: number;
  /** Where replies are asked for (the services answer only below their own inbox prefix). */
  inboxPrefix?: string;
  /** When a call is sent again; default: createResendPolicy(timeoutMs). */
  resend?: ResendPolicy;
}

/**
 * What the gateway makes of a reply: the call's HTTP answer, or (a stream operation's GET) the stream's opening, its
 * 2xx body the first event. Sending is the same; the reply checks (--validateReplies) read the two differently.
 */
export type ReplyUse = 'answer' | 'stream';

/** Sends one call as a request message and resolves with the reply; failures are `RestbusError`s with their codes. */
export type Forwarder = (
  endpoint: CompiledEndpoint,
  request: IncomingRequest,
  trace: TraceContext,
  use?: ReplyUse,
) => Promise<ResponseMessage>;

/**
 * The body limit counts the bytes the client sent; the message carries them JSON-escaped (up to 6 bytes for one
 * control character) or base64 (4 for 3), with the headers and the endpoint description. Said in bytes, so a
 * client can tell which of the two limits it met.
 */
function tooLargeForBus(size: number | undefined, maxPayload: number | undefined): RestbusError {
  const what = size === undefined ? 'the request message' : `the request message (${size} bytes)`;
  const limit =
    maxPayload === undefined ? "the message bus's max_payload" : `the message bus's max_payload of ${maxPayload} bytes`;
  return new RestbusError(
    'BODY_TOO_LARGE',
    `${what} is over ${limit}: it carries the body JSON-escaped (base64 when binary) with the request headers`,
  );
}

function toRestbusError(err: unknown, topic: string, maxPayload: number | undefined): RestbusError {
  if (err instanceof RestbusError) {
    return err.code === 'NO_RESPONDER' ? new RestbusError('NO_RESPONDER', `no service answers on ${topic}`) : err;
  }
  if (err instanceof NatsError) {
    switch (err.code) {
      case NatsErrorCode.MaxPayloadExceeded:
        return tooLargeForBus(undefined, maxPayload);
      case NatsErrorCode.ConnectionClosed:
      case NatsErrorCode.ConnectionDraining:
      case NatsErrorCode.Disconnect:
        return new RestbusError('NATS_UNAVAILABLE', 'the message bus is not reachable');
    }
  }
  return new RestbusError('INTERNAL', 'the request could not be forwarded', { cause: err });
}

/** A reply flagged with the NATS services error headers becomes that status with a JSON `{error}` body. */
async function toReply(msg: Msg): Promise<ResponseMessage> {
  // get() answers "" for an absent header as for an empty one: an empty code is still a (broken) error reply.
  if (!msg.headers?.has(SERVICE_ERROR_CODE_HEADER)) {
    return decodeReplyApart(msg.headers, msg.data) ?? (await decodeLargeResponseMessage(msg.data));
  }
  const code = msg.headers.get(SERVICE_ERROR_CODE_HEADER);
  const status = /^\d{3}$/.test(code) ? Number(code) : NaN;
  // An error is a 4xx or a 5xx; anything else would let an error reply pass for a success or an interim answer.
  if (!(status >= 400 && status <= 599)) {
    throw new RestbusError(
      'BAD_REPLY',
      `the reply carries the service error code ${JSON.stringify(code.slice(0, 16))}, not an HTTP error status (400-599)`,
    );
  }
  // A restbus service sends its error reply as the body too (with its code, and Retry-After for a 503): that is
  // what the client gets. The headers alone (another NATS service) become a generic SERVICE_ERROR.
  const detailed = decodeErrorBody(msg.data, status);
  if (detailed) return detailed;
  return {
    status,
    body: { error: msg.headers?.get(SERVICE_ERROR_HEADER) || 'the service reported an error', code: 'SERVICE_ERROR' },
  };
}

/** The response message carried with a service error, when there is one whose status matches the error code. */
function decodeErrorBody(data: Uint8Array, status: number): ResponseMessage | undefined {
  if (data.length === 0) return undefined;
  try {
    const reply = decodeResponseMessage(data);
    return reply.status === status ? reply : undefined;
  } catch {
    return undefined;
  }
}

/**
 * Each copy of a call after the first its send span's event: a hedge or a resend after a failover shows on the span,
 * whose start is the first send (an event for that one would cost every call and say nothing the span does not).
 */
function recordSends(span: Span): SendObserver {
  return (copy, reason) => {
    if (copy > 1) span.addEvent('send', { 'restbus.send.copy': copy, 'restbus.send.reason': reason });
  };
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const { link, timeoutMs } = options;
  const policy = options.resend ?? createResendPolicy(timeoutMs);
  let mux: RequestMux | undefined;
  // One entry per topic of the route table, so it is bounded by the loaded documents.
  const servedAt = new Map<string, number>();
  return async (endpoint, request, trace) => {
    // A call that comes while the link moves to another server (its server died or left) waits for the move, as
    // long as a move takes; in an outage longer than that it is answered at once.
    if (!link.isConnected() && !(await link.waitForConnection(policy.failoverWaitMs))) {
      throw new RestbusError('NATS_UNAVAILABLE', 'the message bus is not reachable');
    }
    const nc = link.current();
    if (!nc) throw new RestbusError('NATS_UNAVAILABLE', 'the message bus is not reachable');
    // The link keeps one connection for its life (nats.js reconnects it), so one mux serves every call.
    mux ??= createRequestMux(nc, options.inboxPrefix);
    const headers = natsHeaders();
    headers.set('content-type', 'application/json');
    headers.set(MESSAGE_TYPE_HEADER, RPC_REQUEST);
    headers.set('x-request-id', trace.requestId);
    // The body of the reply is written to the client as it comes (see REPLY_FORM_HEADER).
    headers.set(REPLY_FORM_HEADER, BODY_APART);
    const data = encodeRequestMessage(endpoint.messagePrefix, request);
    const maxPayload = nc.info?.max_payload;
    if (maxPayload !== undefined && data.length > maxPayload) throw tooLargeForBus(data.length, maxPayload);
    // Tracing on: the send's own span is the service's parent; off, the call's traceparent travels as it came.
    const span = startSendSpan(trace, headers, {
      subject: endpoint.topic,
      operation: endpoint.source.model.name,
      bytes: data.length,
    });
    const onSend = span && recordSends(span);
    const resend = policy.resendFor(endpoint.desc.method);
    const started = performance.now();
    for (let attempt = 0; ; attempt++) {
      const left = timeoutMs - (performance.now() - started);
      try {
        const msg = await mux.request(endpoint.topic, data, headers, left, resend, onSend);
        servedAt.set(endpoint.topic, performance.now());
        const reply = await toReply(msg);
        endSendSpan(span, { status: reply.status ?? 200 });
        return reply;
      } catch (err) {
        const now = performance.now();
        const pause =
          err instanceof RestbusError && err.code === 'NO_RESPONDER'
            ? policy.pauseAfterNoResponder({
                attempt,
                elapsedMs: now - started,
                sinceServedMs: now - (servedAt.get(endpoint.topic) ?? -Infinity),
              })
            : undefined;
        if (pause === undefined) {
          const failure = toRestbusError(err, endpoint.topic, maxPayload);
          endSendSpan(span, { err: failure });
          throw failure;
        }
        span?.addEvent('no responder', { 'restbus.send.pause_ms': pause });
        await new Promise((resolve) => setTimeout(resolve, pause));
      }
    }
  };
}
