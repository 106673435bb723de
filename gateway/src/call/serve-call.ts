import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import {
  isRestbusError,
  logRequestFailure,
  refuseRequest,
  RestbusError,
  sendError,
  type ErrorCode,
  type Logger,
  type ResponseMessage,
} from '@restbus/infra';
import type { Forwarder } from '../forward/create-forwarder';
import { readBody } from '../http/read-body';
import { sendReply, writeHttpAnswer } from '../http/send-reply';
import { toIncomingRequest } from '../http/to-incoming-request';
import type { MockAnswers } from '../mock/create-mock-answers';
import { findUnmetSecurity } from '../mock/find-unmet-security';
import type { GatewayMetrics } from '../observability/create-metrics';
import type { Refusal } from '../validation/create-request-validator';
import type { Call } from './call';

export interface CallServerDeps {
  /** Forwards calls over NATS; without it every described endpoint answers 501 (upstream behaviour). */
  forward?: Forwarder;
  /**
   * easer's -m: answer as the API description says without forwarding, or when no service answers; the answers are
   * kept here (the gateway forgets them on reload).
   */
  mock?: MockAnswers;
  /**
   * --mockWrites: with -u -m, the mock answers the unsafe methods too when no service does. Off by default: a mocked
   * 201 or 204 tells the client a write happened that nothing stored.
   */
  mockWrites?: boolean;
  /** The largest body accepted now (it can change on reload). */
  bodyLimit(): number;
  metrics: GatewayMetrics;
  logger: Logger;
}

/** easer's message for a described endpoint it does not forward, kept word for word (clients match on it). */
export const NOT_IMPLEMENTED_MESSAGE = 'The endpoint is either not implemented or `operationId` is ignored';

/** Where the 501's code travels: the specification gives its body one field, `error`, so the code cannot go there. */
export const ERROR_CODE_HEADER = 'x-restbus-error-code';

// Encoded once: every call of a gateway without -u gets the same bytes.
const NOT_IMPLEMENTED_BODY = JSON.stringify({ error: NOT_IMPLEMENTED_MESSAGE });

/**
 * The specification's answer to a described endpoint without -u, exactly: 501, `application/json; charset=utf-8`,
 * `{"error": "..."}` and nothing else in the body. The one reply that is not sendError's `{error, code}`.
 */
function sendNotImplemented(res: ServerResponse, headers: OutgoingHttpHeaders): void {
  res.writeHead(501, STATUS_CODES[501], {
    ...headers,
    [ERROR_CODE_HEADER]: 'NOT_IMPLEMENTED' satisfies ErrorCode,
    'content-type': 'application/json; charset=utf-8',
    'content-length': Buffer.byteLength(NOT_IMPLEMENTED_BODY),
  });
  res.end(NOT_IMPLEMENTED_BODY);
}

/**
 * Failures that mean no service is there to answer: with -u -m the mock answers instead. A timeout or a service's
 * error is never masked: a service took the call.
 */
const NO_SERVICE = new Set(['NO_RESPONDER', 'NATS_UNAVAILABLE']);

/** The safe methods (RFC 9110 §9.2.1): answering one from the mock cannot stand for a change that never happened. */
const SAFE_METHODS = new Set(['get', 'head', 'options', 'trace']);

/** On an answer the mock gave in place of a service (with -u -m), so that a client can tell. */
export const MOCKED_HEADER = 'x-restbus-mocked';

/**
 * The path of one call, in one direction: read the body, validate, forward (encode, publish, decode the reply),
 * answer. Each failure is answered once, in the one error shape, and logged with the call's ids.
 */
export function createCallServer(deps: CallServerDeps): (call: Call) => Promise<void> {
  const { forward, mock, metrics, logger } = deps;

  /** What a log line says of the call: the operation (method and template), never the client's path or values. */
  const describeCall = ({ endpoint, trace }: Call): Record<string, unknown> => ({
    method: endpoint.desc.method.toUpperCase(),
    route: endpoint.desc.uri,
    reqId: trace.requestId,
    traceId: trace.traceId,
    topic: endpoint.topic,
  });

  /** Answers a failure in the one error shape, logged in one line at the level its kind has (logRequestFailure). */
  function answerError(call: Call, error: RestbusError): void {
    logRequestFailure(logger, error, describeCall(call));
    sendError(call.res, error.code, error.message, { ...call.headers, ...error.headers }, { details: error.details });
  }

  /** Answers 401 when the operation's security requirements are not met (the mock checks them; a service its own). */
  function refuseUnauthenticated(call: Call): boolean {
    const challenges = findUnmetSecurity(call.endpoint.source, { headers: call.req.headers, query: call.query });
    if (!challenges) return false;
    const refusal = refuseRequest('credentialsMissing', 'the operation needs credentials the request does not carry', {
      headers: { 'www-authenticate': challenges },
    });
    answerError(call, refusal);
    return true;
  }

  /** Answers as the API description says the operation answers (see buildMockResponse). */
  function answerFromMock(call: Call, mock: MockAnswers, marked: boolean): void {
    const { endpoint, req, res, headers } = call;
    try {
      const answer = mock.answer(endpoint.source, req.headers);
      writeHttpAnswer(res, answer, marked ? { ...headers, [MOCKED_HEADER]: 'true' } : headers);
      metrics.answered(endpoint.desc.uri, endpoint.desc.method.toUpperCase(), 'mock');
    } catch (err) {
      if (!isRestbusError(err)) throw err;
      answerError(call, err);
    }
  }

  function answerFailure(call: Call, err: unknown): void {
    const error = isRestbusError(err)
      ? err
      : new RestbusError('INTERNAL', 'the request could not be forwarded', { cause: err });
    // A client's mistake (a body too large, a query of 1,001 parameters) is no failure of the bus.
    if (error.status >= 500) metrics.natsError(error.code);
    // With -u -m, while no service is there, the API description answers (marked so): reads only, unless asked.
    if (mock && NO_SERVICE.has(error.code) && (deps.mockWrites || SAFE_METHODS.has(call.endpoint.desc.method))) {
      if (refuseUnauthenticated(call)) return;
      // What hybrid mode is for while services are being written: one line, no warning, no stack.
      logger.info({ code: error.code, ...describeCall(call) }, 'no service is there: the mock answers in its place');
      answerFromMock(call, mock, true);
      return;
    }
    answerError(call, error);
  }

  /** A call that breaks its operation (--validate): 400 REQUEST_INVALID with every problem, with or without -u. */
  function refuseInvalid(call: Call, refusal: Refusal): void {
    answerError(call, refuseRequest('notAsDescribed', refusal.message, { details: { problems: refusal.problems } }));
  }

  function answerReply(call: Call, reply: ResponseMessage): void {
    try {
      sendReply(call.res, reply, call.headers);
      metrics.answered(call.endpoint.desc.uri, call.endpoint.desc.method.toUpperCase(), 'service');
    } catch (err) {
      metrics.natsError('BAD_REPLY');
      // sendReply says what is wrong (status, which header, the body): the service's failure, a warning; anything
      // else is ours (logged with its stack) and not the reply's to explain.
      logRequestFailure(logger, err, describeCall(call));
      const message = isRestbusError(err) ? err.message : 'the reply cannot be written as an HTTP response';
      sendError(call.res, 'BAD_REPLY', message, call.headers);
    }
  }

  return async (call) => {
    const { endpoint, req, res, headers } = call;
    if (!forward) {
      if (!mock) {
        sendNotImplemented(res, headers);
        return;
      }
      if (refuseUnauthenticated(call)) return;
      try {
        if (endpoint.validate) {
          const request = toIncomingRequest(req, call.query, call.params, await readBody(req, deps.bodyLimit()));
          const refusal = await endpoint.validate(request);
          if (refusal) {
            // 400 as the forwarding gateway, the mock server and the services answer it, not Prism's 422: a client
            // written against the mock meets the same status from the real API.
            refuseInvalid(call, refusal);
            return;
          }
        }
      } catch (err) {
        answerFailure(call, err);
        return;
      }
      answerFromMock(call, mock, false);
      return;
    }
    let reply: ResponseMessage;
    try {
      const request = toIncomingRequest(req, call.query, call.params, await readBody(req, deps.bodyLimit()));
      // Without --validate, no await: a forwarded call pays no extra turn for a check it does not have.
      const refusal = endpoint.validate ? await endpoint.validate(request) : undefined;
      if (refusal) {
        refuseInvalid(call, refusal);
        return;
      }
      reply = await forward(endpoint, request, call.trace);
    } catch (err) {
      answerFailure(call, err);
      return;
    }
    answerReply(call, reply);
  };
}
