import { STATUS_CODES, type OutgoingHttpHeaders, type ServerResponse } from 'node:http';
import {
  isRestbusError,
  refuseRequest,
  RestbusError,
  type ErrorCode,
  type HttpMethod,
  type IncomingRequest,
  type Logger,
  type ResponseMessage,
} from '@restbus/infra';
import type { Forwarder } from '../forward/create-forwarder';
import { readBody } from '../http/read-body';
import { writeHttpAnswer } from '../http/send-reply';
import { toIncomingRequest } from '../http/to-incoming-request';
import type { MockAnswers } from '../mock/create-mock-answers';
import { traceStep } from '../observability/call-spans';
import type { GatewayMetrics } from '../observability/create-metrics';
import type { RequestCheck } from '../validation/create-request-validator';
import { admitCall, attachCaller } from '../security/admit-call';
import type { CallPolicy } from '../security/call-policy';
import type { AnsweredEndpoint, Call, CallAnswer } from '../call/call';
import { CallFailures, isNoService } from './call-failures';

export interface CallAnswerDeps {
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
  /**
   * Whether the mock checks that credentials are present before it answers, as Prism does: when `--auth` is left
   * out. With `--auth`, each endpoint's policy checks every call, mocked or forwarded, before it is answered.
   */
  mockChecksCredentials?: boolean;
  /**
   * `--authDropCredentials`: the `Authorization` header of a call its policy verified is not sent on to the service
   * (which is told who called at `request.user`).
   */
  dropCredentials?: boolean;
  /** The largest body accepted now (it can change on reload). */
  bodyLimit(): number;
  metrics: GatewayMetrics;
  logger: Logger;
}

/**
 * How the calls of a described endpoint are answered: `not-implemented` (no -u, no -m: the specification's 501),
 * `mock` (-m: the API description answers), `forward` (-u: a service over NATS answers), `forward-then-mock` (-u -m:
 * a service, or the mock while none is there; safe methods only unless --mockWrites). `x-static` operations are no
 * described endpoints: their folders answer (createStaticContent).
 */
export type AnswerKind = 'not-implemented' | 'mock' | 'forward' | 'forward-then-mock';

/** The safe methods (RFC 9110 §9.2.1): answering one from the mock cannot stand for a change that never happened. */
const SAFE_METHODS = new Set<HttpMethod>(['get', 'head', 'options', 'trace']);

/** How the gateway's settings answer calls of `method`: decided once per endpoint, when the routes are built. */
export function chooseAnswerKind(
  settings: { forwarding: boolean; mock: boolean; mockWrites: boolean },
  method: HttpMethod,
): AnswerKind {
  if (!settings.forwarding) return settings.mock ? 'mock' : 'not-implemented';
  return settings.mock && (settings.mockWrites || SAFE_METHODS.has(method)) ? 'forward-then-mock' : 'forward';
}

/** easer's message for a described endpoint it does not forward, kept word for word (clients match on it). */
export const NOT_IMPLEMENTED_MESSAGE = 'The endpoint is either not implemented or `operationId` is ignored';

/** Where the 501's code travels: the specification gives its body one field, `error`, so the code cannot go there. */
export const ERROR_CODE_HEADER = 'x-restbus-error-code';

/** On an answer the mock gave in place of a service (with -u -m), so that a client can tell. */
export const MOCKED_HEADER = 'x-restbus-mocked';

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
 * The answers of described endpoints: for each endpoint, when the routes are built, the one path its calls take
 * (chooseAnswerKind): read the body, validate, forward or mock, answer. Each failure is answered once, in the one
 * error shape, and logged with the call's ids (CallFailures, which event streams share).
 */
export function createCallAnswers(deps: CallAnswerDeps): (endpoint: AnsweredEndpoint) => CallAnswer {
  const { forward, mock, metrics, logger } = deps;
  const failures = new CallFailures({ metrics, logger, checksCredentials: deps.mockChecksCredentials !== false });
  const methodOf = (call: Call): string => call.endpoint.source.model.method.toUpperCase();

  function answerError(call: Call, error: RestbusError): void {
    failures.sendFailure(call.res, error, call.headers, call, methodOf(call));
  }

  const toFailure = (err: unknown): RestbusError => failures.toFailure(err, 'the request could not be forwarded');

  /** Answers 401 when the operation's security requirements are not met (the mock checks them; a service its own). */
  function refuseUnauthenticated(call: Call): boolean {
    const refusal = failures.findMissingCredentials(call.endpoint.source, call.req, call.query);
    if (refusal) answerError(call, refusal);
    return refusal !== undefined;
  }

  /** Answers as the API description says the operation answers (see buildMockResponse). */
  function answerFromMock(call: Call, answers: MockAnswers, marked: boolean): void {
    const { endpoint, req, res, headers } = call;
    const { method, path } = endpoint.source.model;
    try {
      const answer = answers.answer(endpoint.source, req.headers, call.query);
      writeHttpAnswer(res, answer, marked ? { ...headers, [MOCKED_HEADER]: 'true' } : headers);
      metrics.answered(path, method.toUpperCase(), 'mock');
    } catch (err) {
      if (!isRestbusError(err)) throw err;
      answerError(call, err);
    }
  }

  function answerReply(call: Call, reply: ResponseMessage): void {
    if (failures.sendServiceReply(call.res, reply, call.headers, call, methodOf(call))) {
      metrics.answered(call.endpoint.source.model.path, methodOf(call), 'service');
    }
  }

  /**
   * The call's request message, its body read; undefined when --validate refused it (400 REQUEST_INVALID with every
   * problem, answered here). Without --validate, no await: a forwarded call pays no extra turn for a check it does
   * not have.
   */
  async function readRequest(call: Call, validate: RequestCheck | undefined): Promise<IncomingRequest | undefined> {
    const { req, query, params } = call;
    const request = toIncomingRequest(req, query, params, await readBody(req, deps.bodyLimit()));
    attachCaller(request, call, deps.dropCredentials === true);
    const refusal = validate ? await traceStep(call.trace, 'validate request', () => validate(request)) : undefined;
    if (!refusal) return request;
    answerError(call, refuseRequest('notAsDescribed', refusal.message, { details: { problems: refusal.problems } }));
    return undefined;
  }

  /** -m alone: the credentials, then (--validate) the call, are checked before the description answers. */
  const answerWithMock = (answers: MockAnswers, validate: RequestCheck | undefined): CallAnswer =>
    async function answerFromDescription(call) {
      if (refuseUnauthenticated(call)) return;
      // 400 as the forwarding gateway, the mock server and the services answer it, not Prism's 422: a client
      // written against the mock meets the same status from the real API. The body is read only to be checked.
      if (validate) {
        try {
          if (!(await readRequest(call, validate))) return;
        } catch (err) {
          answerError(call, toFailure(err));
          return;
        }
      }
      answerFromMock(call, answers, false);
    };

  /** -u: the call goes to its service; with `fallback`, while no service is there, the mock answers (marked so). */
  const answerByForwarding = (
    send: Forwarder,
    validate: RequestCheck | undefined,
    fallback?: MockAnswers,
  ): CallAnswer =>
    async function forwardCall(call) {
      let reply: ResponseMessage;
      try {
        const request = await readRequest(call, validate);
        if (!request) return;
        reply = await send(call.endpoint, request, call.trace);
      } catch (err) {
        const error = toFailure(err);
        if (fallback && isNoService(error)) {
          if (refuseUnauthenticated(call)) return;
          failures.logStandIn(error, call, methodOf(call), 'the mock answers in its place');
          answerFromMock(call, fallback, true);
          return;
        }
        answerError(call, error);
        return;
      }
      answerReply(call, reply);
    };

  /** Runs the endpoint's policy first: a call it refuses is answered so, and never reaches NATS or the mock. */
  const guard =
    (policy: CallPolicy, answer: CallAnswer): CallAnswer =>
    (call) => {
      const refusal = admitCall(policy, call, { metrics, logger, trace: call.trace });
      if (refusal === undefined) return answer(call);
      if (refusal instanceof Promise) return refusal.then((found) => (found ? answerError(call, found) : answer(call)));
      answerError(call, refusal);
      return Promise.resolve();
    };

  const settings = {
    forwarding: forward !== undefined,
    mock: mock !== undefined,
    mockWrites: deps.mockWrites === true,
  };
  const chooseAnswer = (endpoint: AnsweredEndpoint): CallAnswer | undefined => {
    const { validate } = endpoint;
    const kind = chooseAnswerKind(settings, endpoint.source.model.method);
    if (kind === 'mock' && mock) return answerWithMock(mock, validate);
    if (kind === 'forward' && forward) return answerByForwarding(forward, validate);
    if (kind === 'forward-then-mock' && forward && mock) return answerByForwarding(forward, validate, mock);
    return undefined;
  };
  return (endpoint) => {
    const answer = chooseAnswer(endpoint);
    if (answer) return endpoint.policy ? guard(endpoint.policy, answer) : answer;
    // The specification's 501, whatever the credentials: there is nothing behind it to protect.
    return async function answerNotImplemented(call) {
      sendNotImplemented(call.res, call.headers);
    };
  };
}
