import type { IncomingMessage, OutgoingHttpHeaders, ServerResponse } from 'node:http';
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
import { sendReply } from '../http/send-reply';
import { recordCallFailure } from '../observability/call-spans';
import type { GatewayMetrics } from '../observability/create-metrics';
import { describeTrace, type TraceContext } from '../observability/trace-context';
import type { ApiEndpoint } from '../openapi/endpoint';
import { findUnmetSecurity } from '../security/find-unmet-security';

/**
 * Failures that mean no service is there to answer: with -u -m the mock answers (or streams) instead. A timeout or a
 * service's error is never masked: a service took the call.
 */
const NO_SERVICE = new Set<ErrorCode>(['NO_RESPONDER', 'NATS_UNAVAILABLE']);

export const isNoService = (error: RestbusError): boolean => NO_SERVICE.has(error.code);

/** What a failure's log line names of a call. */
export interface DescribedCall {
  endpoint: { source: ApiEndpoint; topic: string };
  trace: TraceContext;
}

export interface CallFailuresOptions {
  metrics: GatewayMetrics;
  logger: Logger;
  /**
   * Whether the mock checks that credentials are present before it answers, as Prism does: when `--auth` is left
   * out. With `--auth`, each endpoint's policy checks every call, mocked, forwarded or streamed.
   */
  checksCredentials: boolean;
}

/**
 * The failures every kind of answer meets, answered one way: an ordinary call, a mocked one and an event stream read
 * a failure into one RestbusError, count one of the bus, refuse missing credentials with the same 401, log one line
 * with the call's ids and answer in the one error shape.
 */
export class CallFailures {
  private readonly metrics: GatewayMetrics;
  private readonly logger: Logger;
  private readonly checksCredentials: boolean;

  constructor(options: CallFailuresOptions) {
    this.metrics = options.metrics;
    this.logger = options.logger;
    this.checksCredentials = options.checksCredentials;
  }

  /** A failure to read, check, forward or open, as a RestbusError (`whatFailed` words one that is none); one of the bus counted as such. */
  toFailure(err: unknown, whatFailed: string): RestbusError {
    const error = isRestbusError(err) ? err : new RestbusError('INTERNAL', whatFailed, { cause: err });
    // A client's mistake (a body too large, a query of 1,001 parameters) is no failure of the bus.
    if (error.status >= 500) this.metrics.natsError(error.code);
    return error;
  }

  /** The 401 of an operation whose security requirements the call does not meet, when the mock checks them. */
  findMissingCredentials(endpoint: ApiEndpoint, req: IncomingMessage, query: string): RestbusError | undefined {
    if (!this.checksCredentials) return undefined;
    const challenges = findUnmetSecurity(endpoint, { headers: req.headers, query });
    if (!challenges) return undefined;
    return refuseRequest('credentialsMissing', 'the operation needs credentials the request does not carry', {
      headers: { 'www-authenticate': challenges },
    });
  }

  /** Says the failure in one line at the level its kind has (logRequestFailure), with the call's ids. */
  log(error: unknown, call: DescribedCall, method: string): void {
    logRequestFailure(this.logger, error, describeCall(call, method));
  }

  /** Says why no service answered and what answers in its place: what hybrid mode is for, one line, no stack. */
  logStandIn(error: RestbusError, call: DescribedCall, method: string, standIn: string): void {
    this.logger.info({ code: error.code, ...describeCall(call, method) }, `no service is there: ${standIn}`);
  }

  /** Answers a failure in the one error shape, and logs it. */
  sendFailure(
    res: ServerResponse,
    error: RestbusError,
    headers: OutgoingHttpHeaders,
    call: DescribedCall,
    method: string,
  ): void {
    this.log(error, call, method);
    recordCallFailure(call.trace, error.code);
    sendError(res, error.code, error.message, { ...headers, ...error.headers }, { details: error.details });
  }

  /**
   * Writes a service's reply; one that cannot be an HTTP response is answered 502 BAD_REPLY instead. Whether the
   * reply was written.
   */
  sendServiceReply(
    res: ServerResponse,
    reply: ResponseMessage,
    headers: OutgoingHttpHeaders,
    call: DescribedCall,
    method: string,
  ): boolean {
    try {
      sendReply(res, reply, headers);
      return true;
    } catch (err) {
      this.metrics.natsError('BAD_REPLY');
      // sendReply says what is wrong (status, which header, the body): the service's failure, a warning; anything
      // else is ours (logged with its stack) and not the reply's to explain.
      this.log(err, call, method);
      const message = isRestbusError(err) ? err.message : 'the reply cannot be written as an HTTP response';
      recordCallFailure(call.trace, 'BAD_REPLY');
      sendError(res, 'BAD_REPLY', message, headers);
      return false;
    }
  }
}

/** What a log line says of the call: the operation (method and template), never the client's path or values. */
function describeCall({ endpoint, trace }: DescribedCall, method: string): Record<string, unknown> {
  return {
    method,
    route: endpoint.source.model.path,
    ...describeTrace(trace),
    topic: endpoint.topic,
  };
}
