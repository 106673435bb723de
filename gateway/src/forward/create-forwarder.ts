import type { Request, Response } from 'express';
import { ErrorCode as NatsErrorCode, NatsError, type MsgHdrs } from 'nats';
import {
  RestbusError,
  SERVICE_ERROR_CODE_HEADER,
  SERVICE_ERROR_HEADER,
  createRequestHeaders,
  decodeResponseMessage,
  encodeMessage,
  type EndpointDesc,
  type Logger,
  type NatsLink,
  type ResponseMessage,
} from '@restbus/infra';
import { sendError } from '../http/send-error';
import { buildRequestMessage } from './build-request-message';
import { sendReply } from './send-reply';

export interface ForwarderOptions {
  link: NatsLink;
  timeoutMs: number;
  logger: Logger;
}

export type Forwarder = (topic: string, desc: EndpointDesc, req: Request, res: Response) => Promise<void>;

function toRestbusError(err: unknown, topic: string, timeoutMs: number): RestbusError {
  if (err instanceof RestbusError) return err;
  if (err instanceof NatsError) {
    switch (err.code) {
      case NatsErrorCode.NoResponders:
        return new RestbusError('NO_RESPONDER', `no service answers on ${topic}`);
      case NatsErrorCode.Timeout:
        return new RestbusError('UPSTREAM_TIMEOUT', `the service did not reply within ${timeoutMs} ms`);
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
function fromServiceError(headers: MsgHdrs | undefined): ResponseMessage | undefined {
  const code = headers?.get(SERVICE_ERROR_CODE_HEADER);
  if (!code) return undefined;
  const status = Number(code);
  if (!Number.isInteger(status) || status < 100 || status > 599) {
    throw new RestbusError('BAD_REPLY', `the reply carries an invalid service error code "${code}"`);
  }
  return {
    status,
    body: { error: headers?.get(SERVICE_ERROR_HEADER) || 'the service reported an error', code: 'SERVICE_ERROR' },
  };
}

/** Forwards a call as a request message over NATS and writes the reply, or the failure, as the HTTP response. */
export function createForwarder(options: ForwarderOptions): Forwarder {
  const { link, timeoutMs } = options;
  const logger = options.logger.child({ component: 'forward' });

  return async (topic, desc, req, res) => {
    const nc = link.current();
    if (!nc || !link.isConnected()) {
      sendError(res, 'NATS_UNAVAILABLE', 'the message bus is not reachable');
      return;
    }
    let reply: ResponseMessage;
    try {
      const message = encodeMessage(buildRequestMessage(topic, desc, req));
      const msg = await nc.request(topic, message, { timeout: timeoutMs, headers: createRequestHeaders() });
      reply = fromServiceError(msg.headers) ?? decodeResponseMessage(msg.data);
    } catch (err) {
      const error = toRestbusError(err, topic, timeoutMs);
      const log = error.code === 'INTERNAL' ? logger.error.bind(logger) : logger.warn.bind(logger);
      log({ err, topic, code: error.code }, 'forwarding failed');
      sendError(res, error.code, error.message);
      return;
    }
    try {
      sendReply(res, reply);
    } catch (err) {
      logger.warn({ err, topic }, 'the reply cannot be written as an HTTP response');
      sendError(res, 'BAD_REPLY', 'the service replied with invalid HTTP headers');
    }
  };
}
