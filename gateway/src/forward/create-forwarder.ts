import { ErrorCode as NatsErrorCode, NatsError, headers as natsHeaders, type Msg } from 'nats';
import {
  MESSAGE_TYPE_HEADER,
  RPC_REQUEST,
  RestbusError,
  SERVICE_ERROR_CODE_HEADER,
  SERVICE_ERROR_HEADER,
  decodeResponseMessage,
  type IncomingRequest,
  type NatsLink,
  type ResponseMessage,
} from '@restbus/infra';
import type { TraceContext } from '../observability/trace-context';
import type { CompiledEndpoint } from '../routing/route-table';
import { encodeRequestMessage } from './build-request-message';
import { createRequestMux, type RequestMux } from './create-request-mux';

export interface ForwarderOptions {
  link: NatsLink;
  timeoutMs: number;
  /** Where replies are asked for (the services answer only below their own inbox prefix). */
  inboxPrefix?: string;
}

/** Sends one call as a request message and resolves with the reply; failures are `RestbusError`s with their codes. */
export type Forwarder = (
  endpoint: CompiledEndpoint,
  request: IncomingRequest,
  trace: TraceContext,
) => Promise<ResponseMessage>;

function toRestbusError(err: unknown, topic: string): RestbusError {
  if (err instanceof RestbusError) {
    return err.code === 'NO_RESPONDER' ? new RestbusError('NO_RESPONDER', `no service answers on ${topic}`) : err;
  }
  if (err instanceof NatsError) {
    switch (err.code) {
      case NatsErrorCode.MaxPayloadExceeded:
        return new RestbusError('BODY_TOO_LARGE', 'the request is larger than the message bus accepts');
      case NatsErrorCode.ConnectionClosed:
      case NatsErrorCode.ConnectionDraining:
      case NatsErrorCode.Disconnect:
        return new RestbusError('NATS_UNAVAILABLE', 'the message bus is not reachable');
    }
  }
  return new RestbusError('INTERNAL', 'the request could not be forwarded', { cause: err });
}

/** A reply flagged with the NATS services error headers becomes that status with a JSON `{error}` body. */
function toReply(msg: Msg): ResponseMessage {
  const code = msg.headers?.get(SERVICE_ERROR_CODE_HEADER);
  if (!code) return decodeResponseMessage(msg.data);
  const status = Number(code);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RestbusError('BAD_REPLY', `the reply carries an invalid service error code "${code}"`);
  }
  return {
    status,
    body: { error: msg.headers?.get(SERVICE_ERROR_HEADER) || 'the service reported an error', code: 'SERVICE_ERROR' },
  };
}

export function createForwarder(options: ForwarderOptions): Forwarder {
  const { link, timeoutMs } = options;
  let mux: RequestMux | undefined;
  return async (endpoint, request, trace) => {
    const nc = link.current();
    if (!nc || !link.isConnected()) throw new RestbusError('NATS_UNAVAILABLE', 'the message bus is not reachable');
    // The link keeps one connection for its life (nats.js reconnects it), so one mux serves every call.
    mux ??= createRequestMux(nc, options.inboxPrefix);
    const headers = natsHeaders();
    headers.set('content-type', 'application/json');
    headers.set(MESSAGE_TYPE_HEADER, RPC_REQUEST);
    headers.set('traceparent', trace.traceparent);
    headers.set('x-request-id', trace.requestId);
    let msg: Msg;
    try {
      msg = await mux.request(endpoint.topic, encodeRequestMessage(endpoint, request), headers, timeoutMs);
    } catch (err) {
      throw toRestbusError(err, endpoint.topic);
    }
    return toReply(msg);
  };
}
